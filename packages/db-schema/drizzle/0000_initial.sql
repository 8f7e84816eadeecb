CREATE TABLE "anchored_checkpoints" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"tree_size" bigint NOT NULL,
	"root" "bytea" NOT NULL,
	"nonce" bigint NOT NULL,
	"signature" text NOT NULL,
	"slot" bigint,
	"anchored_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "anchored_checkpoints_user_size_unique" UNIQUE("user_id","tree_size")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"key_hash" "bytea" NOT NULL,
	"prefix" char(12) NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "capability_grants" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" "bytea" NOT NULL,
	"operation" jsonb NOT NULL,
	"label" text,
	"max_uses" integer NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "capability_grants_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "capability_grants_uses_check" CHECK ("capability_grants"."uses" >= 0 and "capability_grants"."uses" <= "capability_grants"."max_uses"),
	CONSTRAINT "capability_grants_max_uses_check" CHECK ("capability_grants"."max_uses" >= 1)
);
--> statement-breakpoint
CREATE TABLE "commit_batches" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"status" text DEFAULT 'submitted' NOT NULL,
	"tree_size" bigint NOT NULL,
	"root" "bytea" NOT NULL,
	"expected_nonce" bigint NOT NULL,
	"signature" text,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commit_batches_status_check" CHECK ("commit_batches"."status" in ('submitted', 'confirmed', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "extension_sessions" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "extension_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "grant_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "grant_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"grant_id" text,
	"user_id" text,
	"outcome" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "grant_audit_outcome_check" CHECK ("grant_audit"."outcome" in ('ok', 'not_found', 'revoked', 'expired', 'exhausted'))
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"leaf_index" bigint NOT NULL,
	"ciphertext" "bytea",
	"iv" "bytea",
	"leaf_hash" "bytea" NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"anchored" boolean DEFAULT false NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "memories_user_leaf_unique" UNIQUE("user_id","leaf_index"),
	CONSTRAINT "memories_leaf_index_check" CHECK ("memories"."leaf_index" >= 0),
	CONSTRAINT "memories_leaf_hash_check" CHECK (octet_length("memories"."leaf_hash") = 32),
	CONSTRAINT "memories_deleted_check" CHECK (("memories"."deleted_at" is null and "memories"."ciphertext" is not null) or ("memories"."deleted_at" is not null and "memories"."ciphertext" is null and "memories"."iv" is null))
);
--> statement-breakpoint
CREATE TABLE "merkle_nodes" (
	"user_id" text NOT NULL,
	"level" smallint NOT NULL,
	"idx" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "merkle_nodes_user_id_level_idx_pk" PRIMARY KEY("user_id","level","idx"),
	CONSTRAINT "merkle_nodes_hash_check" CHECK (octet_length("merkle_nodes"."hash") = 32)
);
--> statement-breakpoint
CREATE TABLE "sign_in_nonces" (
	"nonce" text NOT NULL,
	"public_key" text NOT NULL,
	"message" text NOT NULL,
	"purpose" text DEFAULT 'sign_in' NOT NULL,
	"redirect_uri" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sign_in_nonces_nonce_public_key_pk" PRIMARY KEY("nonce","public_key"),
	CONSTRAINT "sign_in_nonces_purpose_check" CHECK ("sign_in_nonces"."purpose" in ('sign_in', 'extension_connect'))
);
--> statement-breakpoint
CREATE TABLE "stake_lots" (
	"id" text PRIMARY KEY DEFAULT gen_random_uuid()::text NOT NULL,
	"user_id" text NOT NULL,
	"amount_lamports" bigint NOT NULL,
	"unlock_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"signature" text NOT NULL,
	CONSTRAINT "stake_lots_signature_unique" UNIQUE("signature"),
	CONSTRAINT "stake_lots_amount_check" CHECK ("stake_lots"."amount_lamports" > 0)
);
--> statement-breakpoint
CREATE TABLE "trees" (
	"user_id" text PRIMARY KEY NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"root" "bytea" NOT NULL,
	"frontier" "bytea" NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trees_size_check" CHECK ("trees"."size" >= 0),
	CONSTRAINT "trees_frontier_check" CHECK (octet_length("trees"."frontier") % 32 = 0)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_pubkey" text NOT NULL,
	"wrapped_data_key" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_owner_pubkey_unique" UNIQUE("owner_pubkey")
);
--> statement-breakpoint
ALTER TABLE "anchored_checkpoints" ADD CONSTRAINT "anchored_checkpoints_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "capability_grants" ADD CONSTRAINT "capability_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commit_batches" ADD CONSTRAINT "commit_batches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "extension_sessions" ADD CONSTRAINT "extension_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_audit" ADD CONSTRAINT "grant_audit_grant_id_capability_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."capability_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_audit" ADD CONSTRAINT "grant_audit_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stake_lots" ADD CONSTRAINT "stake_lots_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trees" ADD CONSTRAINT "trees_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_user_created_idx" ON "api_keys" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "capability_grants_user_created_idx" ON "capability_grants" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "commit_batches_status_created_idx" ON "commit_batches" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "commit_batches_user_created_idx" ON "commit_batches" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "extension_sessions_user_idx" ON "extension_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "grant_audit_grant_idx" ON "grant_audit" USING btree ("grant_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memories_pending_idx" ON "memories" USING btree ("user_id","created_at") WHERE "memories"."anchored" = false;--> statement-breakpoint
CREATE INDEX "memories_deleted_idx" ON "memories" USING btree ("user_id","deleted_at") WHERE "memories"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX "sign_in_nonces_expires_at_idx" ON "sign_in_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "stake_lots_user_unlock_idx" ON "stake_lots" USING btree ("user_id","unlock_at");