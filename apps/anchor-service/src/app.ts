/**
 * The anchor service's HTTP surface (hono): `GET /metrics` (Prometheus text exposition of the
 * service's own registry; CONTRACT §6), `GET /healthz` (the process is up) and `GET /readyz` (the
 * database answers and every committed migration is applied). Nothing here changes state.
 * @module
 */
import { type Executor, pendingMigrations } from "@svc/db-schema";
import { Hono } from "hono";
import type { AnchorMetrics } from "./metrics.js";

/** Dependencies of {@link createApp}. */
export interface AppDeps {
  /** Database checked by `/readyz`. */
  readonly db: Executor;
  /** Metrics served by `/metrics`. */
  readonly metrics: AnchorMetrics;
}

/**
 * Builds the hono app.
 * - `GET /metrics` → 200, `text/plain; version=0.0.4` exposition of `metrics.registry`.
 * - `GET /healthz` → 200 `{ status: "ok" }`.
 * - `GET /readyz` → 200 `{ status: "ready" }`, or 503
 *   `{ error: { code: "database_unavailable" | "migrations_pending", message } }`.
 * Unknown paths are 404 `{ error: { code: "not_found", message } }` (CONTRACT §1 error shape).
 * @example serve({ fetch: createApp({ db, metrics }).fetch, port: 8789 })
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.get("/metrics", async (c) => {
    const body = await deps.metrics.registry.metrics();
    return c.body(body, 200, { "content-type": deps.metrics.registry.contentType });
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  app.get("/readyz", async (c) => {
    let pending: number;
    try {
      pending = await pendingMigrations(deps.db);
    } catch {
      return c.json(
        { error: { code: "database_unavailable", message: "the database does not answer" } },
        503,
      );
    }
    if (pending > 0) {
      return c.json(
        {
          error: {
            code: "migrations_pending",
            message: `${pending} migration(s) not applied`,
          },
        },
        503,
      );
    }
    return c.json({ status: "ready" });
  });

  app.notFound((c) => c.json({ error: { code: "not_found", message: "no such route" } }, 404));

  return app;
}
