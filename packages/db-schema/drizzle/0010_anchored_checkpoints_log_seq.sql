ALTER TABLE "anchored_checkpoints" ADD COLUMN "log_seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "anchored_checkpoints_log_seq_idx" ON "anchored_checkpoints" USING btree ("log_seq");