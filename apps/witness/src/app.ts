/**
 * The witness's HTTP app (hono): `POST /add-checkpoint` (C2SP tlog-witness "add-checkpoint") and
 * `GET /healthz`. Bodies above 64 KiB are 400. docs/protocol.md §13.6 "Witnesses".
 * @module
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "pino";
import { type AddCheckpointDeps, addCheckpoint } from "./add-checkpoint.js";

/** The largest request body, bytes: 63 proof lines and a checkpoint with 100 signatures fit. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Builds the witness app over its key, trusted logs and state.
 * @param logger receives a warning for each 422 (a proof that fails may show a misbehaving log)
 *   and each 409 at the stored size with another root, as tlog-witness suggests logging them.
 */
export function createWitnessApp(deps: AddCheckpointDeps & { readonly logger: Logger }): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.text("ok\n"));
  app.post(
    "/add-checkpoint",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.text(`the body exceeds ${MAX_BODY_BYTES} bytes\n`, 400),
    }),
    async (c) => {
      const body = await c.req.text();
      const answer = await addCheckpoint(deps, body);
      if (answer.status === 422) {
        deps.logger.warn({ body, reason: answer.body.trim() }, "consistency proof refused");
      }
      return c.body(answer.body, answer.status, { "Content-Type": answer.contentType });
    },
  );
  return app;
}
