CREATE TABLE "recall_vector_segments" (
	"user_id" text NOT NULL,
	"model_id" text NOT NULL,
	"first_leaf" bigint NOT NULL,
	"end_leaf" bigint NOT NULL,
	"format" smallint NOT NULL,
	"entries" integer NOT NULL,
	"iv" "bytea" NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"sealed_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recall_vector_segments_pkey" PRIMARY KEY("user_id","model_id","first_leaf"),
	CONSTRAINT "recall_vector_segments_range_check" CHECK ("recall_vector_segments"."first_leaf" >= 0 and "recall_vector_segments"."end_leaf" > "recall_vector_segments"."first_leaf")
);
--> statement-breakpoint
ALTER TABLE "recall_vector_segments" ADD CONSTRAINT "recall_vector_segments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;