/**
 * `GET /healthz` (liveness) and `GET /readyz` (database reachable, every committed migration
 * applied: the `pendingMigrations` check of @svc/db-schema, the one the anchor service uses).
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { pendingMigrations } from "@svc/db-schema";
import type { App, AppDeps } from "../../context.js";
import { errorBody, loggableError } from "../../errors.js";
import { errorResponse } from "../../schemas.js";

const LiveSchema = z.object({ status: z.literal("ok") });
const ReadySchema = z.object({ status: z.literal("ready") });

/** Registers `GET /healthz` and `GET /readyz`. */
export function registerGetHealth(app: App, deps: AppDeps): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["operations"],
      summary: "Liveness: the process answers",
      responses: {
        200: { description: "Alive", content: { "application/json": { schema: LiveSchema } } },
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      tags: ["operations"],
      summary: "Readiness: database reachable and every migration applied",
      responses: {
        200: { description: "Ready", content: { "application/json": { schema: ReadySchema } } },
        503: errorResponse("database_unavailable (no answer) or migrations_pending"),
      },
    }),
    async (c) => {
      let pending: number;
      try {
        pending = await pendingMigrations(deps.db);
      } catch (error) {
        deps.logger.warn(
          { requestId: c.var.requestId, err: loggableError(error) },
          "readiness: database unavailable",
        );
        return c.json(errorBody("database_unavailable", "the database does not answer"), 503);
      }
      if (pending > 0) {
        return c.json(
          errorBody("migrations_pending", `${pending} migration(s) not applied`, { pending }),
          503,
        );
      }
      return c.json({ status: "ready" as const }, 200);
    },
  );
}
