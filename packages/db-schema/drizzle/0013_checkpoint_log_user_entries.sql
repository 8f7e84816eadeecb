ALTER TABLE "checkpoint_log_entries" ALTER COLUMN "checkpoint_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD COLUMN "tree_size" bigint;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD COLUMN "note" text;--> statement-breakpoint
UPDATE "checkpoint_log_entries" e SET "user_id" = c."user_id", "tree_size" = c."tree_size" FROM "anchored_checkpoints" c WHERE c."id" = e."checkpoint_id";--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ALTER COLUMN "user_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ALTER COLUMN "tree_size" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "checkpoint_log_heads" ADD COLUMN "anchor_account" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "log_anchored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD CONSTRAINT "checkpoint_log_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkpoint_log_entries" ADD CONSTRAINT "checkpoint_log_entries_user_size_unique" UNIQUE("user_id","tree_size");
