CREATE TABLE "checkpoint_log_entries" (
	"leaf_index" bigint PRIMARY KEY NOT NULL,
	"checkpoint_id" text NOT NULL,
	"entry" "bytea" NOT NULL,
	CONSTRAINT "checkpoint_log_entries_checkpointId_unique" UNIQUE("checkpoint_id")
);
--> statement-breakpoint
CREATE TABLE "checkpoint_log_heads" (
	"tree_size" bigint PRIMARY KEY NOT NULL,
	"root" "bytea" NOT NULL,
	"note" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkpoint_log_nodes" (
	"level" smallint NOT NULL,
	"idx" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "checkpoint_log_nodes_level_idx_pk" PRIMARY KEY("level","idx"),
	CONSTRAINT "checkpoint_log_nodes_hash_check" CHECK (octet_length("checkpoint_log_nodes"."hash") = 32)
);
--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD CONSTRAINT "checkpoint_log_entries_checkpoint_id_anchored_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."anchored_checkpoints"("id") ON DELETE no action ON UPDATE no action;