/**
 * The bundling step of `pnpm build` for the public packages whose `build` script names entry
 * files (scripts/build-package.ts `--bundle`): after tsc, esbuild rewrites those entries of `dist/`
 * as ES modules holding the package's own code, so that Node's loader reads one or a few files
 * instead of one per source module (`svc` start-up, docs/performance.md "svc start-up (`pnpm bench
 * startup`)"). Every import of another package, and of node's builtins, stays an import: the
 * package's `dependencies` are exactly what the bundle loads, and a dependency's classes (an
 * `SvcError` checked with `instanceof`) come from one copy. Code shared by entries, and each
 * module imported with `import()`, becomes a chunk beside them in `dist/` (so a relative path such
 * as `../package.json` still names the package's folder), still loaded only when imported. The
 * source maps map back to `src/` through tsc's maps. The `.d.ts` files are tsc's, unchanged; the
 * per-module JavaScript the bundles now hold is deleted. See docs/releasing.md "Building".
 * @module
 */
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { build } from "esbuild";

/**
 * Bundles `entries` (file names relative to `dist`, e.g. `index.js`, `commands/x.js`, which tsc
 * has written) in place, and deletes the other JavaScript files the bundles took in, with their
 * source maps.
 * @returns the absolute paths of the files written (entries, chunks and their maps).
 * @throws Error from esbuild when an entry does not bundle (with esbuild's messages).
 */
export async function bundleDistEntries(
  dist: string,
  entries: readonly string[],
): Promise<string[]> {
  const result = await build({
    absWorkingDir: dist,
    entryPoints: [...entries],
    outdir: dist,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    packages: "external",
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
  });
  const written = new Set(Object.keys(result.metafile.outputs).map((file) => resolve(dist, file)));
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = resolve(dist, input);
    if (!written.has(file)) {
      await rm(file);
      await rm(`${file}.map`, { force: true });
    }
  }
  return [...written];
}
