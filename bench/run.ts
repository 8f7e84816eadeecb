/**
 * `pnpm bench`: runs every `bench/*.bench.ts` module (each exports `run(): Promise<void>`)
 * in name order, or only those whose name contains one of the command-line arguments.
 * Each module prints its figures beside baselines measured in the same run.
 * @module
 */
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = (await readdir(here))
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: () => Promise<void> };
  await mod.run();
}
