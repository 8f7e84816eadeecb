CREATE TABLE "checkpoint_log_cosignatures" (
	"tree_size" bigint NOT NULL,
	"witness" text NOT NULL,
	"line" text NOT NULL,
	"cosigned_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "checkpoint_log_cosignatures_tree_size_witness_pk" PRIMARY KEY("tree_size","witness")
);
--> statement-breakpoint
ALTER TABLE "checkpoint_log_cosignatures" ADD CONSTRAINT "checkpoint_log_cosignatures_tree_size_checkpoint_log_heads_tree_size_fk" FOREIGN KEY ("tree_size") REFERENCES "public"."checkpoint_log_heads"("tree_size") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkpoint_log_cosignatures_witness_size_idx" ON "checkpoint_log_cosignatures" USING btree ("witness","tree_size");