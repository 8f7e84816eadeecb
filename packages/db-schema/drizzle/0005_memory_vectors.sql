CREATE TABLE "memory_vectors" (
	"user_id" text NOT NULL,
	"memory_id" text NOT NULL,
	"model_id" text NOT NULL,
	"leaf_index" bigint NOT NULL,
	"iv" "bytea" NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_vectors_pkey" PRIMARY KEY("memory_id","model_id"),
	CONSTRAINT "memory_vectors_iv_check" CHECK (octet_length("memory_vectors"."iv") = 12)
);
--> statement-breakpoint
ALTER TABLE "memory_vectors" ADD CONSTRAINT "memory_vectors_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_vectors" ADD CONSTRAINT "memory_vectors_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_vectors_user_model_idx" ON "memory_vectors" USING btree ("user_id","model_id","created_at");