/**
 * `pnpm build` of one public package (its package.json's `build` script runs this in the package's
 * folder): empties `dist/`, compiles `src/` with tsc (tsconfig.build.json: JavaScript, `.d.ts` and
 * source maps), bundles the entry files named after `--bundle` (paths relative to `dist/`, e.g.
 * `--bundle index.js verify.js`; lib/bundle-dist.ts) and copies the workspace's LICENSE into
 * `dist/`, which the package's `files` ships. Exits with tsc's status, or 1 when bundling fails.
 * See docs/releasing.md.
 * @module
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleDistEntries } from "./lib/bundle-dist.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

const args = process.argv.slice(2);
if (args.length > 0 && (args[0] !== "--bundle" || args.length === 1)) {
  throw new Error(`usage: build-package.ts [--bundle <entry.js>…], got ${args.join(" ")}`);
}
const dist = join(process.cwd(), "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  stdio: "inherit",
});
if (result.status === 0) {
  if (args.length > 1) {
    await bundleDistEntries(dist, args.slice(1));
  }
  copyFileSync(join(REPO_ROOT, "LICENSE"), join(dist, "LICENSE"));
}
process.exitCode = result.status ?? 1;
