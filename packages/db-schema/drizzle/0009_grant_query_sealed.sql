ALTER TABLE "capability_grants" ADD COLUMN "query_ciphertext" "bytea";--> statement-breakpoint
ALTER TABLE "capability_grants" ADD COLUMN "query_iv" "bytea";--> statement-breakpoint
ALTER TABLE "capability_grants" ADD CONSTRAINT "capability_grants_query_sealed_check" CHECK (("capability_grants"."query_ciphertext" is null) = ("capability_grants"."query_iv" is null));