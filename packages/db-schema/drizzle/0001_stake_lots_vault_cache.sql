-- stake_lots is a cache rebuilt from the chain on every read: drop old rows so position can be NOT NULL.
DELETE FROM "stake_lots";--> statement-breakpoint
ALTER TABLE "stake_lots" DROP CONSTRAINT "stake_lots_signature_unique";--> statement-breakpoint
DROP INDEX "stake_lots_user_unlock_idx";--> statement-breakpoint
ALTER TABLE "stake_lots" ADD COLUMN "position" smallint NOT NULL;--> statement-breakpoint
ALTER TABLE "stake_lots" ADD COLUMN "refreshed_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "stake_lots" DROP COLUMN "created_at";--> statement-breakpoint
ALTER TABLE "stake_lots" DROP COLUMN "signature";--> statement-breakpoint
ALTER TABLE "stake_lots" ADD CONSTRAINT "stake_lots_user_position_unique" UNIQUE("user_id","position");--> statement-breakpoint
ALTER TABLE "stake_lots" ADD CONSTRAINT "stake_lots_position_check" CHECK ("stake_lots"."position" >= 0);