/**
 * `GET /healthz` (liveness) and `GET /readyz` (readiness, as the app's `ready()` callback finds
 * it: for the APIs, the database reachable and every committed migration applied, through
 * @verifiable-memory/runtime's databaseReadiness) for any OpenAPIHono app.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Logger } from "pino";
import { errorBody, loggableError } from "./errors.js";
import { errorResponse, NoQuerySchema } from "./openapi.js";
import type { RequestIdEnv } from "./request-log.js";

const LiveSchema = z.object({ status: z.literal("ok") });
const ReadySchema = z.object({ status: z.literal("ready") });

/**
 * What a readiness check finds: ready, or the migrations still to apply (503
 * `migrations_pending`). A check that throws means the database does not answer (503
 * `database_unavailable`).
 */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly pending: number };

/**
 * Registers `GET /healthz` (200 while the process answers) and `GET /readyz` (200 when `ready()`
 * finds the app ready; 503 `migrations_pending` with `{ pending }`, or 503 `database_unavailable`
 * when it throws, logged at warn with the request id) on `app`.
 */
export function registerHealthRoutes<E extends RequestIdEnv>(
  app: OpenAPIHono<E>,
  deps: { readonly ready: () => Promise<Readiness>; readonly logger: Logger },
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
      let readiness: Readiness;
      try {
        readiness = await deps.ready();
      } catch (error) {
        deps.logger.warn(
          { requestId: c.var.requestId, err: loggableError(error) },
          "readiness: database unavailable",
        );
        return c.json(errorBody("database_unavailable", "the database does not answer"), 503);
      }
      if (!readiness.ready) {
        const { pending } = readiness;
        return c.json(
          errorBody("migrations_pending", `${pending} migration(s) not applied`, { pending }),
          503,
        );
      }
      return c.json({ status: "ready" as const }, 200);
    },
  );
}
