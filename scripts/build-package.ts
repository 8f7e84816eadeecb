/**
 * `pnpm build` of one public package (its package.json's `build` script runs this in the package's
 * folder): empties `dist/`, compiles `src/` with tsc (tsconfig.build.json: JavaScript, `.d.ts` and
 * source maps) and copies the workspace's LICENSE into `dist/`, which the package's `files` ships.
 * Exits with tsc's status. See docs/releasing.md.
 * @module
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

const dist = join(process.cwd(), "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  stdio: "inherit",
});
if (result.status === 0) {
  copyFileSync(join(REPO_ROOT, "LICENSE"), join(dist, "LICENSE"));
}
process.exitCode = result.status ?? 1;
