/**
 * Writes core-api's OpenAPI document to packages/client/openapi.json (scripts/openapi-document.ts).
 *
 *   pnpm --filter @verifiable-memory/core-api openapi            write the file
 *   pnpm --filter @verifiable-memory/core-api openapi --check    exit 1 when the committed file is stale
 *
 * After writing it, regenerate the SDK's types: `pnpm --filter @verifiable-memory/client generate`
 * (`pnpm openapi` at the root runs both).
 * Needs no database and no chain. Exit 0: written / up to date; 1: drift (with --check); 2: usage
 * error or failure.
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { coreApiDocument, OPENAPI_FILE, renderDocument } from "./openapi-document.js";

/** Runs the command line; resolves to the exit status. */
async function main(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => arg !== "--check")) {
    console.error("usage: pnpm --filter @verifiable-memory/core-api openapi [--check]");
    return 2;
  }
  const text = renderDocument(await coreApiDocument());
  if (!argv.includes("--check")) {
    await writeFile(OPENAPI_FILE, text);
    console.log(`wrote ${OPENAPI_FILE}`);
    return 0;
  }
  const committed = await readFile(OPENAPI_FILE, "utf8").catch(() => null);
  if (committed === text) {
    console.log(`${OPENAPI_FILE} is up to date with core-api`);
    return 0;
  }
  console.error(
    `${OPENAPI_FILE} is ${committed === null ? "missing" : "out of date"}: core-api's OpenAPI document changed.\n` +
      "Run `pnpm openapi` (this script, then the SDK's generator) and commit both files.",
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`writing core-api's OpenAPI document failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 2;
  },
);
