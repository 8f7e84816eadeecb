/**
 * The committed OpenAPI document (packages/client/openapi.json, the SDK's input) is what core-api
 * serves today, so `pnpm test` fails when the API changed and nobody ran
 * `pnpm openapi` (core-api's `openapi` script, then the SDK's generator).
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { coreApiDocument, OPENAPI_FILE, renderDocument } from "../scripts/openapi-document.js";

describe("packages/client/openapi.json", () => {
  it("is core-api's current OpenAPI document", async () => {
    const committed = await readFile(OPENAPI_FILE, "utf8");
    const current = renderDocument(await coreApiDocument());
    if (committed !== current) {
      // The parsed documents show which path or schema moved; the text check also holds the format.
      expect(JSON.parse(committed)).toEqual(JSON.parse(current));
      expect.fail(
        "packages/client/openapi.json is not formatted as the script writes it; run `pnpm openapi`",
      );
    }
    const document = JSON.parse(committed) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toContain("/memories");
  });
});
