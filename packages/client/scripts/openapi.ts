/**
 * Builds core-api's OpenAPI document and turns it into the SDK's TypeScript types.
 *
 * The document comes from the app itself, not from a copy: `createApp` from `@verifiable-memory/core-api` is
 * built with a fixed configuration and asked for `GET /openapi.json` in process
 * (`app.request`). Building the app and serving that route touch no database and no chain, so the
 * app gets a database handle that throws on first use: if a future change makes `createApp` or
 * `/openapi.json` reach the database, generation fails loudly instead of silently needing one.
 * The types are openapi-typescript's rendering of that document.
 * @module
 */
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import pino from "pino";
// By path, not as a dependency: core-api depends (through @verifiable-memory/mcp) on this package.
import { type AppDeps, createApp, loadConfig } from "../../../apps/core-api/src/index.js";

/** Where the generated types are committed. */
export const GENERATED_FILE = fileURLToPath(
  new URL("../src/generated/core-api.ts", import.meta.url),
);

/**
 * A fixed configuration, so the document (and so the types) never depend on the environment the
 * generator runs in. None of these values reaches the generated types; they only satisfy
 * `loadConfig`.
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
          "packages/client/scripts/openapi.ts assumes it does not",
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

const HEADER = `/**
 * core-api's types, GENERATED from its OpenAPI document (GET /openapi.json) by
 * packages/client/scripts/generate.ts with openapi-typescript. Do not edit by hand: run
 * \`pnpm --filter @verifiable-memory/client generate\`. \`.ci/run\` and packages/client/test/generated.test.ts fail
 * when this file differs from what the current core-api generates.
 */
`;

/** The text of the generated types file for `document`. */
export async function renderTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], {
    // Fail on a document openapi-typescript cannot read, instead of emitting partial types.
    silent: true,
  });
  return `${HEADER}\n${astToString(ast)}`;
}

/** The generated types file as the current core-api produces it. */
export async function generateTypes(): Promise<string> {
  return renderTypes(await coreApiDocument());
}

/**
 * How `committed` differs from `generated`, for the drift check's message: the span between
 * their common first and last lines, with up to `maxLines` lines of each side.
 */
export function describeDrift(generated: string, committed: string, maxLines = 15): string {
  const want = generated.split("\n");
  const have = committed.split("\n");
  let head = 0;
  while (head < want.length && head < have.length && want[head] === have[head]) {
    head++;
  }
  let tail = 0;
  while (
    tail < want.length - head &&
    tail < have.length - head &&
    want[want.length - 1 - tail] === have[have.length - 1 - tail]
  ) {
    tail++;
  }
  const removed = have.slice(head, have.length - tail);
  const added = want.slice(head, want.length - tail);
  const show = (lines: string[], sign: string) =>
    lines
      .slice(0, maxLines)
      .map((line) => `  ${sign} ${line}`)
      .concat(
        lines.length > maxLines ? [`  ${sign} … ${lines.length - maxLines} more line(s)`] : [],
      );
  return [
    `from line ${head + 1}: ${removed.length} committed line(s) differ from ${added.length} generated line(s):`,
    ...show(removed, "-"),
    ...show(added, "+"),
  ].join("\n");
}
