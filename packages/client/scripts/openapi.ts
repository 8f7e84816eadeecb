/**
 * Turns core-api's committed OpenAPI document (packages/client/openapi.json, written by core-api's
 * `openapi` script, which a core-api test keeps current) into the SDK's TypeScript types with
 * openapi-typescript. The SDK reads the file and never imports the app.
 * @module
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

/** Where the generated types are committed. */
export const GENERATED_FILE = fileURLToPath(
  new URL("../src/generated/core-api.ts", import.meta.url),
);

/** core-api's committed OpenAPI document, the generator's input. */
export const OPENAPI_FILE = fileURLToPath(new URL("../openapi.json", import.meta.url));

/**
 * The committed OpenAPI 3.1 document.
 * @throws Error when the file is missing or not JSON.
 */
export async function coreApiDocument(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(OPENAPI_FILE, "utf8")) as Record<string, unknown>;
}

const HEADER = `/**
 * core-api's types, GENERATED from its committed OpenAPI document (packages/client/openapi.json)
 * by packages/client/scripts/generate.ts with openapi-typescript. Do not edit by hand: run
 * \`pnpm --filter @verifiable-memory/client generate\`. \`.ci/run\` and packages/client/test/generated.test.ts fail
 * when this file differs from what openapi.json generates.
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
