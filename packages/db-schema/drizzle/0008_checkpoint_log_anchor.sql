ALTER TABLE "checkpoint_log_heads" ADD COLUMN "anchor_signature" text;--> statement-breakpoint
ALTER TABLE "checkpoint_log_heads" ADD COLUMN "anchor_slot" bigint;--> statement-breakpoint
ALTER TABLE "checkpoint_log_heads" ADD COLUMN "anchor_nonce" bigint;--> statement-breakpoint
ALTER TABLE "checkpoint_log_heads" ADD COLUMN "anchored_at" timestamp (3) with time zone;