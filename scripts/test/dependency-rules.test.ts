/**
 * The import rules `pnpm lint` runs (.dependency-cruiser.cjs, docs/architecture.md "Layers") fail
 * on a violation: a scratch tree with one import breaking each rule, by relative path, by
 * workspace name through node_modules and type-only, is cruised with the repository's config and
 * each violation is named; the allowed imports in the same tree are not.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const depcruise = join(root, "node_modules", ".bin", "depcruise");
const config = join(root, ".dependency-cruiser.cjs");

/** The scratch tree: file → contents. */
const FILES: Record<string, string> = {
  "packages/pure/package.json": manifest("@fixture/pure"),
  "packages/pure/src/index.ts": "export const pure = 1;\n",
  "apps/b/package.json": manifest("@fixture/b"),
  "apps/b/src/index.ts": 'import { pure } from "@fixture/pure";\nexport const b = pure;\n',
  "apps/b/test/helpers.ts": 'export { b } from "../src/index.js";\n',
  "apps/b/test/b.test.ts": 'import { b } from "./helpers.js";\nexport const own = b;\n',
  // packages-must-not-import-apps (and workspaces-by-name): a relative path into an app.
  "packages/by-path/src/index.ts":
    'import { b } from "../../../apps/b/src/index.js";\nexport const x = b;\n',
  // packages-must-not-import-apps: the app's workspace name, in a test.
  "packages/by-name/test/x.test.ts": 'import { b } from "@fixture/b";\nexport const x = b;\n',
  // apps-must-not-import-apps: type-only counts.
  "apps/d/src/index.ts": 'import type { b } from "@fixture/b";\nexport type X = typeof b;\n',
  // no-foreign-test-folder (and apps-must-not-import-apps, workspaces-by-name).
  "apps/e/test/e.test.ts": 'import { b } from "../../b/test/helpers.js";\nexport const x = b;\n',
  // no-test-folder-from-the-top; scripts may import an app's exports.
  "scripts/bad.ts": 'import { b } from "../apps/b/test/helpers.js";\nexport const x = b;\n',
  "scripts/ok.ts": 'import { b } from "@fixture/b";\nexport const x = b;\n',
  // workspaces-by-name: a package reaching into another package's src.
  "packages/reach/src/index.ts":
    'import { pure } from "../../pure/src/index.js";\nexport const x = pure;\n',
};

function manifest(name: string): string {
  return `${JSON.stringify({ name, type: "module", exports: { ".": "./src/index.ts" } })}\n`;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let dir: string;
let run: { status: number | null; violations: string[] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-depcruise-"));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await mkdir(join(dir, "node_modules", "@fixture"), { recursive: true });
  await symlink(join(dir, "apps", "b"), join(dir, "node_modules", "@fixture", "b"));
  await symlink(join(dir, "packages", "pure"), join(dir, "node_modules", "@fixture", "pure"));
  const cruise = (...output: string[]) =>
    spawnSync(depcruise, ["--config", config, ...output, "packages", "apps", "scripts"], {
      cwd: dir,
      encoding: "utf8",
    });
  const report = JSON.parse(cruise("--output-type", "json").stdout) as {
    summary: { violations: Violation[] };
  };
  run = {
    // As `pnpm lint` runs it: the default reporter, whose exit code counts the errors.
    status: cruise().status,
    violations: report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort(),
  };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the import rules", () => {
  it("fail the run (non-zero exit) when a rule is broken", () => {
    expect(run.status).not.toBe(0);
  });

  it("name every broken rule, and nothing that is allowed", () => {
    expect(run.violations).toEqual(
      [
        "packages-must-not-import-apps: packages/by-path/src/index.ts -> apps/b/src/index.ts",
        "workspaces-by-name: packages/by-path/src/index.ts -> apps/b/src/index.ts",
        "packages-must-not-import-apps: packages/by-name/test/x.test.ts -> apps/b/src/index.ts",
        "apps-must-not-import-apps: apps/d/src/index.ts -> apps/b/src/index.ts",
        "no-foreign-test-folder: apps/e/test/e.test.ts -> apps/b/test/helpers.ts",
        "apps-must-not-import-apps: apps/e/test/e.test.ts -> apps/b/test/helpers.ts",
        "workspaces-by-name: apps/e/test/e.test.ts -> apps/b/test/helpers.ts",
        "no-test-folder-from-the-top: scripts/bad.ts -> apps/b/test/helpers.ts",
        "workspaces-by-name: packages/reach/src/index.ts -> packages/pure/src/index.ts",
      ].sort(),
    );
  });
});
