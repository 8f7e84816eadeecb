/**
 * `GET /healthz` (liveness) and `GET /readyz` (database reachable, migrations applied).
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { App, AppDeps } from "../../context.js";
import { errorResponse } from "../../schemas.js";

const StatusSchema = z.object({ status: z.literal("ok") });

/** Registers `GET /healthz` and `GET /readyz`. */
export function registerGetHealth(app: App, deps: AppDeps): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["operations"],
      summary: "Liveness",
      responses: {
        200: { description: "Alive", content: { "application/json": { schema: StatusSchema } } },
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      tags: ["operations"],
      summary: "Readiness: database reachable and migrated",
      responses: {
        200: { description: "Ready", content: { "application/json": { schema: StatusSchema } } },
        503: errorResponse("database_unavailable"),
      },
    }),
    async (c) => {
      try {
        await deps.db.execute(sql`select 1 from users limit 1`);
      } catch {
        return c.json(
          {
            error: {
              code: "database_unavailable",
              message: "the database is not reachable or not migrated",
            },
          },
          503,
        );
      }
      return c.json({ status: "ok" as const }, 200);
    },
  );
}
