/**
 * Entry point of the witness (`tsx apps/witness/src/main.ts`): configuration (key file, trusted
 * log keys) → state file → HTTP server, inside @verifiable-memory/runtime's runService: a bad
 * variable exits 1 naming it; SIGINT/SIGTERM/SIGHUP stop the server (an update in progress
 * finishes writing first). docs/protocol.md §13.6 "Witnesses".
 * @module
 */
import { serve } from "@hono/node-server";
import { createLogger, loadServiceConfig, runService } from "@verifiable-memory/runtime";
import { createWitnessApp } from "./app.js";
import { parseEnv } from "./env.js";
import { openWitnessStore } from "./state.js";

const env = loadServiceConfig("witness", () => parseEnv(process.env));
const logger = createLogger({ service: "witness", level: env.LOG_LEVEL });

await runService({
  name: "witness",
  logger,
  start: async (service) => {
    const store = await openWitnessStore(env.WITNESS_STATE_PATH);
    const app = createWitnessApp({
      cosigner: env.WITNESS_KEY_PATH,
      logs: env.WITNESS_LOGS,
      store,
      now: Date.now,
      logger,
    });
    const server = serve({ fetch: app.fetch, port: env.WITNESS_PORT, hostname: env.WITNESS_HOST });
    service.onShutdown(
      "witness server",
      () => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    server.once("listening", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : env.WITNESS_PORT;
      logger.info(
        { port, vkey: env.WITNESS_KEY_PATH.vkey, logs: [...env.WITNESS_LOGS.keys()] },
        "witness listening",
      );
    });
  },
});
