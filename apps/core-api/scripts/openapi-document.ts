/**
 * core-api's OpenAPI document as a committed file: packages/client/openapi.json, the input the
 * SDK's types are generated from (packages/client/scripts/generate.ts). The SDK reads that file and
 * never imports this app; this module is the only writer of it.
 *
 * The document comes from the app itself: `createApp` is built with a fixed configuration and
 * asked for `GET /openapi.json` in process (`app.request`). Building the app and serving that route
 * touch no database and no chain, so the app gets a database handle that throws on first use: if a
 * future change makes `createApp` or `/openapi.json` reach the database, writing the file fails
 * loudly instead of silently needing one.
 * @module
 */
import { fileURLToPath } from "node:url";
import pino from "pino";
import { type AppDeps, createApp, loadConfig } from "../src/index.js";

/** Where the document is committed: beside the SDK that generates its types from it. */
export const OPENAPI_FILE = fileURLToPath(
  new URL("../../../packages/client/openapi.json", import.meta.url),
);

/**
 * A fixed configuration, so the document never depends on the environment the script runs in.
 * None of these values reaches the document; they only satisfy `loadConfig`.
 */
const FIXED_ENV: Record<string, string> = {
  JWT_SECRET: "openapi-generation-only-secret-0123456789",
  MASTER_ENCRYPTION_KEY: "0".repeat(64),
  SIWS_DOMAIN: "localhost:8787",
  SIWS_URI: "http://localhost:8787",
  SIWS_CHAIN_ID: "localnet",
  SERVICE_NAME: "Verifiable Memory",
  PUBLIC_BASE_URL: "http://localhost:8787",
};

/** A database handle that refuses every use (see the module comment). */
function noDatabase(): AppDeps["db"] {
  return new Proxy({} as AppDeps["db"], {
    get(_target, property) {
      throw new Error(
        `building core-api's OpenAPI document touched the database (db.${String(property)}); ` +
          "apps/core-api/scripts/openapi-document.ts assumes it does not",
      );
    },
  });
}

/**
 * core-api's OpenAPI 3.1 document, exactly as `GET /openapi.json` serves it.
 * @throws Error when the app cannot be built or the route does not answer 200.
 */
export async function coreApiDocument(): Promise<Record<string, unknown>> {
  const app = createApp({
    db: noDatabase(),
    config: loadConfig(FIXED_ENV),
    clock: { now: () => new Date(0) },
    logger: pino({ level: "silent" }),
  });
  const res = await app.request("/openapi.json");
  if (res.status !== 200) {
    throw new Error(`core-api's GET /openapi.json answered ${res.status}: ${await res.text()}`);
  }
  return (await res.json()) as Record<string, unknown>;
}

/** The committed file's text for `document`: two-space JSON and a final newline. */
export function renderDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
