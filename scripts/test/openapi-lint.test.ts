/**
 * Both APIs' OpenAPI documents pass a standard linter: Redocly CLI with its recommended rules
 * (redocly.yaml lists the rules turned off and why) — zero errors and zero warnings — and every
 * operation has an operationId (camelCase, verb first) and declares its security (`[]` when
 * public).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as coreApi from "@verifiable-memory/core-api";
import * as extensionApi from "@verifiable-memory/extension-api";
import { EXTENSION_TEST_ENV, startTestApp, type TestApp } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

let core: TestApp<coreApi.Config, coreApi.App>;
let ext: TestApp<extensionApi.Config, extensionApi.App>;
let dir: string;
const documents: Record<string, { path: string; doc: OpenApi }> = {};

interface OpenApi {
  servers?: { url: string }[];
  paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-openapi-"));
  core = await startTestApp(coreApi);
  ext = await startTestApp(extensionApi, { env: EXTENSION_TEST_ENV });
  for (const [name, app] of [
    ["core", core.app],
    ["extension", ext.app],
  ] as const) {
    const text = await (await app.request("/openapi.json")).text();
    const path = join(dir, `${name}.json`);
    await writeFile(path, text);
    documents[name] = { path, doc: JSON.parse(text) as OpenApi };
  }
});
afterAll(async () => {
  await ext?.close();
  await core?.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each(["core", "extension"])("the %s API's OpenAPI document", (name) => {
  it("passes Redocly's recommended rules with no error and no warning", () => {
    const result = spawnSync(
      "pnpm",
      [
        "exec",
        "redocly",
        "lint",
        "--config",
        "redocly.yaml",
        (documents[name] as { path: string }).path,
      ],
      {
        cwd: root,
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).toBe(0);
    expect(output).toContain("Your API description is valid");
    expect(output, output).not.toMatch(/You have \d+ warnings?/);
  });

  it("names every operation (camelCase, verb first) and declares its security", () => {
    const { doc } = documents[name] as { doc: OpenApi };
    expect(doc.servers?.length).toBe(1);
    const ids: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const label = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, label).toMatch(/^[a-z]+[A-Za-z]*$/);
        expect(operation.security, label).toBeDefined();
        ids.push(operation.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
