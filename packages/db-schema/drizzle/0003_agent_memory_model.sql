CREATE TABLE "memory_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "memory_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"namespace" text,
	"data" jsonb NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{memories:read,memories:write,memories:delete,grants:write}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "namespace" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "leaf_version" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "namespace" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "writer_kind" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "writer_key_id" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "supersedes" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "superseded_by" text;--> statement-breakpoint
ALTER TABLE "memory_events" ADD CONSTRAINT "memory_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_events_user_id_idx" ON "memory_events" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "memories_user_namespace_idx" ON "memories" USING btree ("user_id","namespace" text_pattern_ops) WHERE "memories"."namespace" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "memories_user_supersedes_unique" ON "memories" USING btree ("user_id","supersedes") WHERE "memories"."supersedes" is not null;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_check" CHECK ("api_keys"."scopes" <@ '{memories:read,memories:write,memories:delete,grants:write}'::text[]);--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_leaf_version_check" CHECK ("memories"."leaf_version" in (1, 2));--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_writer_check" CHECK ("memories"."writer_kind" is null or "memories"."writer_kind" in ('session', 'api_key'));--> statement-breakpoint
-- GET /events: the feed is written by triggers, in the transaction of the change, whichever
-- process (core-api, extension-api, anchor-service) made it; NOTIFY wakes every listener.
CREATE FUNCTION "memory_events_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "memory_events" ("user_id", "type", "namespace", "data")
  SELECT n."user_id", 'memory.created', n."namespace",
    jsonb_build_object('id', n."id", 'leafIndex', n."leaf_index", 'namespace', n."namespace",
      'createdAt', to_char(n."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'supersedes', n."supersedes")
  FROM new_rows n ORDER BY n."user_id", n."leaf_index";
  PERFORM pg_notify('memory_events', u."user_id") FROM (SELECT DISTINCT "user_id" FROM new_rows) u;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "memories_events_created" AFTER INSERT ON "memories"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_events_created"();--> statement-breakpoint
CREATE FUNCTION "memory_events_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "memory_events" ("user_id", "type", "namespace", "data")
  VALUES (NEW."user_id", 'memory.deleted', NEW."namespace",
    jsonb_build_object('id', NEW."id", 'leafIndex', NEW."leaf_index", 'namespace', NEW."namespace"));
  PERFORM pg_notify('memory_events', NEW."user_id");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "memories_events_deleted" AFTER UPDATE OF "deleted_at" ON "memories" FOR EACH ROW
  WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL)
  EXECUTE FUNCTION "memory_events_deleted"();--> statement-breakpoint
CREATE FUNCTION "memory_events_anchored"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "memory_events" ("user_id", "type", "data")
  VALUES (NEW."user_id", 'memory.anchored',
    jsonb_build_object('treeSize', NEW."tree_size", 'rootHash', encode(NEW."root", 'hex'),
      'signature', NEW."signature"));
  PERFORM pg_notify('memory_events', NEW."user_id");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "anchored_checkpoints_events" AFTER INSERT ON "anchored_checkpoints" FOR EACH ROW
  EXECUTE FUNCTION "memory_events_anchored"();
