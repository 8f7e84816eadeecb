/**
 * `GET /healthz` (liveness) and `GET /readyz` (database reachable, every committed migration
 * applied: the `pendingMigrations` check of @verifiable-memory/db-schema) for any OpenAPIHono app.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type Database, pendingMigrations } from "@verifiable-memory/db-schema";
import type { Logger } from "pino";
import { errorBody, loggableError } from "./errors.js";
import { errorResponse, NoQuerySchema } from "./openapi.js";
import type { RequestIdEnv } from "./request-log.js";

const LiveSchema = z.object({ status: z.literal("ok") });
const ReadySchema = z.object({ status: z.literal("ready") });

/** Registers `GET /healthz` and `GET /readyz` on `app`. */
export function registerHealthRoutes<E extends RequestIdEnv>(
  app: OpenAPIHono<E>,
  deps: { readonly db: Database; readonly logger: Logger },
): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      operationId: "getHealth",
      security: [],
      tags: ["operations"],
      summary: "Liveness: the process answers",
      request: { query: NoQuerySchema },
      responses: {
        200: { description: "Alive", content: { "application/json": { schema: LiveSchema } } },
        400: errorResponse("invalid_request: an unknown query parameter"),
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      operationId: "getReadiness",
      security: [],
      tags: ["operations"],
      summary: "Readiness: database reachable and every migration applied",
      request: { query: NoQuerySchema },
      responses: {
        200: { description: "Ready", content: { "application/json": { schema: ReadySchema } } },
        400: errorResponse("invalid_request: an unknown query parameter"),
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
