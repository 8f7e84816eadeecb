/**
 * Builds the unpacked extension into `dist/`: the service worker, popup and connected page
 * bundled by esbuild (ES2022 modules), and the manifest, HTML and CSS copied from `static/`.
 * Load `dist/` with chrome://extensions → Developer mode → Load unpacked.
 * @module
 */
import { cp, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The folder of this package. */
export const EXTENSION_ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * Builds the extension into `outDir` (default `<package>/dist`), replacing what was there.
 * @returns the folder to load as an unpacked extension.
 * @throws Error from esbuild when the sources do not build.
 */
export async function buildExtension(outDir = join(EXTENSION_ROOT, "dist")): Promise<string> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: ["background", "popup", "connected"].map((name) =>
      join(EXTENSION_ROOT, "src", `${name}.ts`),
    ),
    outdir: outDir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: false,
    legalComments: "none",
  });
  await cp(join(EXTENSION_ROOT, "static"), outDir, { recursive: true });
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildExtension();
  console.log(`built the extension into ${out}`);
}
