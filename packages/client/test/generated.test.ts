/**
 * The committed types (src/generated/core-api.ts) are what the committed OpenAPI document
 * (openapi.json, which apps/core-api/test/openapi-file.test.ts keeps equal to what core-api serves)
 * generates, so `pnpm test` fails when the API changed and nobody ran
 * `pnpm --filter @verifiable-memory/client generate`; and the generator's `--check` mode (run by .ci/run)
 * exits 1 with a clear message on drift.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeDrift, GENERATED_FILE, generateTypes } from "../scripts/openapi.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-client-generated-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runGenerator(...args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/generate.ts", ...args], {
    cwd: packageDir,
    encoding: "utf8",
    timeout: 120_000,
  });
}

describe("generated core-api types", () => {
  it("match what the committed openapi.json generates", async () => {
    const committed = await readFile(GENERATED_FILE, "utf8");
    const generated = await generateTypes();
    if (generated !== committed) {
      expect.fail(
        `packages/client/src/generated/core-api.ts is out of date; run \`pnpm --filter @verifiable-memory/client generate\`.\n${describeDrift(generated, committed)}`,
      );
    }
    // openapi-typescript's rendering of every operation the SDK calls.
    for (const operation of [
      "createMemory",
      "createMemories",
      "searchMemories",
      "getMemoryProof",
    ]) {
      expect(committed).toContain(`    ${operation}: {`);
    }
  });

  it("--check exits 0 when up to date and 1, with a clear message, when the file drifted", async () => {
    const fresh = runGenerator("--check");
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain("is up to date");

    const stale = join(dir, "core-api.ts");
    const committed = await readFile(GENERATED_FILE, "utf8");
    await writeFile(stale, committed.replace("leafIndex: number;", "leafIndex: string;"));
    const drifted = runGenerator("--check", "--out", stale);
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).toContain("is out of date");
    expect(drifted.stderr).toMatch(/1 committed line\(s\) differ from 1 generated line\(s\)/);
    expect(drifted.stderr).toContain("-             leafIndex: string;");
    expect(drifted.stderr).toContain("+             leafIndex: number;");
    expect(drifted.stderr).toContain("Run `pnpm --filter @verifiable-memory/client generate`");

    const missing = runGenerator("--check", "--out", join(dir, "absent.ts"));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("does not exist");

    const written = runGenerator("--out", stale);
    expect(written.status, written.stderr).toBe(0);
    expect(await readFile(stale, "utf8")).toBe(committed);

    expect(runGenerator("--bogus").status).toBe(2);
  });
});
