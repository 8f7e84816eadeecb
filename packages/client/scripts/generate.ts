/**
 * Regenerates packages/client/src/generated/core-api.ts from core-api's committed OpenAPI document
 * (packages/client/openapi.json; core-api's `openapi` script writes it).
 *
 *   pnpm --filter @verifiable-memory/client generate            write the file
 *   pnpm --filter @verifiable-memory/client generate --check    exit 1 when the committed file is stale
 *   … [--out <path>]                              another file (default: the committed one)
 *
 * Reads only openapi.json (see scripts/openapi.ts). Exit 0: written / up to date;
 * 1: drift (with --check); 2: usage error or generation failure.
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describeDrift, GENERATED_FILE, generateTypes } from "./openapi.js";

const USAGE = "usage: tsx packages/client/scripts/generate.ts [--check] [--out <path>]";

/** Runs the command line; resolves to the exit status. */
async function main(argv: readonly string[]): Promise<number> {
  let check = false;
  let out = GENERATED_FILE;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--check") {
      check = true;
    } else if (arg === "--out" && argv[i + 1] !== undefined) {
      out = resolve(argv[++i] as string);
    } else {
      console.error(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
      return 2;
    }
  }

  const generated = await generateTypes();
  if (!check) {
    await writeFile(out, generated);
    console.log(`wrote ${out}`);
    return 0;
  }
  const committed = await readFile(out, "utf8").catch(() => null);
  if (committed === generated) {
    console.log(`${out} is up to date with openapi.json`);
    return 0;
  }
  console.error(
    [
      `${out} is out of date: openapi.json changed since the SDK's types were generated.`,
      committed === null ? "  (the file does not exist)" : describeDrift(generated, committed),
      "Run `pnpm --filter @verifiable-memory/client generate` and commit the result.",
    ].join("\n"),
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`generating the core-api types failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 2;
  },
);
