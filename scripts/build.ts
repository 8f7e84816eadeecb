/**
 * `pnpm build`: bundles every process `pnpm start` runs into plain JavaScript (scripts/lib/build.ts):
 * `apps/<app>/dist/main.js` for core-api, extension-api, anchor-service and local-chain, and
 * `scripts/dist/postgres-host.js`, each with its source map, and the web console
 * (`apps/console/dist/`, by Vite, failing past its first-load budget). Always rebuilds;
 * `pnpm start` only rebuilds what is stale. Prints one line per bundle; exits 1 with esbuild's messages when a source
 * does not build.
 * @module
 */
import { relative } from "node:path";
import { buildConsole, firstLoadReport } from "../apps/console/build/freshness.js";
import { buildTargets, REPO_ROOT } from "./lib/build.js";

try {
  const started = performance.now();
  const built = await buildTargets();
  for (const bundle of built) {
    console.log(
      `[build] ${bundle.target.name.padEnd(15)} ${relative(REPO_ROOT, bundle.outfile).padEnd(34)} ` +
        `${(bundle.bytes / 1024).toFixed(0).padStart(5)} KiB, ${bundle.inputs} sources, ` +
        `${bundle.externals.length} external packages`,
    );
  }
  await buildConsole();
  const firstLoad = firstLoadReport();
  console.log(
    `[build] ${"console".padEnd(15)} ${"apps/console/dist/".padEnd(34)} ` +
      `first load ${(firstLoad.gzipBytes / 1024).toFixed(1)} KiB gzipped ` +
      `(budget ${(firstLoad.maxGzipBytes / 1024).toFixed(0)} KiB)`,
  );
  console.log(`[build] done in ${Math.round(performance.now() - started)} ms`);
} catch (error) {
  console.error(`[build] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
