/**
 * The public packages as a user gets them (`pnpm test:dist`, `pnpm bench startup`): built
 * (`pnpm build:packages`), packed with `pnpm pack` (the manifest pnpm publishes: dist/ entries,
 * versions instead of `workspace:*` and `catalog:`), and installed with npm into a scratch folder
 * outside the workspace. The scratch package.json maps every project name to its tarball, as a
 * dependency and through `overrides`, so npm never asks a registry for a project name; third-party
 * packages come from the npm registry. See docs/releasing.md.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publicProjects, WORKSPACE_ROOT } from "./workspace.js";

/** A scratch folder with the packed public packages installed. */
export interface DistInstall {
  /** The folder (its node_modules holds the packages; node_modules/.bin the bins). */
  readonly dir: string;
  /** Each public package's name and tarball path. */
  readonly tarballs: ReadonlyMap<string, string>;
  /** The path of a bin: `svc`, `svc-mcp`, `svc-verify`. */
  bin(name: string): string;
}

/** A catalog version of pnpm-workspace.yaml (e.g. `^1.32.2`). */
export async function catalogVersion(name: string): Promise<string> {
  const yaml = await readFile(join(WORKSPACE_ROOT, "pnpm-workspace.yaml"), "utf8");
  const line = yaml.split("\n").find((l) => l.trim().replace(/"/g, "").startsWith(`${name}: `));
  if (line === undefined) {
    throw new Error(`${name} is not in the pnpm catalog`);
  }
  return line
    .slice(line.lastIndexOf(":") + 1)
    .trim()
    .replace(/"/g, "");
}

/**
 * Builds, packs and installs every public package into a new folder under the OS's temporary
 * directory, with `extra` third-party packages beside them (name → version range).
 * @throws Error when a build, pack or npm install fails (their output is inherited).
 */
export async function installPackedPackages(
  extra: Readonly<Record<string, string>> = {},
): Promise<DistInstall> {
  execFileSync("pnpm", ["build:packages"], { cwd: WORKSPACE_ROOT, stdio: "inherit" });
  const dir = await mkdtemp(join(tmpdir(), "svc-dist-"));
  const packs = join(dir, "tarballs");
  await mkdir(packs);
  const tarballs = new Map<string, string>();
  for (const project of publicProjects()) {
    const before = new Set(await readdir(packs));
    execFileSync("pnpm", ["pack", "--pack-destination", packs], {
      cwd: join(WORKSPACE_ROOT, project.dir),
      stdio: ["ignore", "ignore", "inherit"],
    });
    const made = (await readdir(packs)).filter((file) => !before.has(file));
    if (made.length !== 1) {
      throw new Error(`pnpm pack in ${project.dir} made ${made.length} files`);
    }
    tarballs.set(project.manifest.name, join(packs, made[0] as string));
  }
  const mapped = Object.fromEntries(
    [...tarballs].map(([name, file]) => [name, `file:${file}`] as const),
  );
  await writeFile(
    join(dir, "package.json"),
    `${JSON.stringify(
      {
        name: "svc-dist-check",
        private: true,
        type: "module",
        dependencies: { ...mapped, ...extra },
        overrides: mapped,
      },
      null,
      2,
    )}\n`,
  );
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: "inherit",
  });
  return { dir, tarballs, bin: (name) => join(dir, "node_modules", ".bin", name) };
}
