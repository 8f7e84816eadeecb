-- users.master_key_id: the master key a version-2 wrapped data key names, computed from the wrap
-- itself (NULL for version-1 wraps from before key ids, which the start-up check verifies by
-- trial). Adding a stored generated column rewrites users (one row per wallet) under a short lock.
ALTER TABLE "users" ADD COLUMN "master_key_id" text GENERATED ALWAYS AS (CASE WHEN length(wrapped_data_key) = 69 AND get_byte(wrapped_data_key, 0) = 2 THEN encode(substring(wrapped_data_key FROM 2 FOR 8), 'hex') END) STORED;--> statement-breakpoint
CREATE INDEX "users_master_key_id_idx" ON "users" USING btree ("master_key_id");