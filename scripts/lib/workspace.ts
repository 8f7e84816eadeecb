/**
 * The workspace's package manifests, read from disk: each project's folder, name and
 * `package.json`, for the checks of scripts/test/manifests.test.ts, the package build
 * (scripts/lib/packages.ts) and `pnpm test:dist`.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is `scripts/lib/workspace.ts`). */
export const WORKSPACE_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** The folders that hold projects (pnpm-workspace.yaml `packages`). */
const PROJECT_PARENTS = ["packages", "apps", "programs"] as const;

/** The dependency fields of a manifest. */
export const DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
] as const;

/** The parts of a package.json these checks read. */
export interface Manifest {
  readonly name: string;
  readonly version?: string;
  readonly private?: boolean;
  readonly description?: string;
  readonly license?: string;
  readonly type?: string;
  readonly sideEffects?: boolean | readonly string[];
  readonly engines?: Readonly<Record<string, string>>;
  readonly repository?: {
    readonly type: string;
    readonly url: string;
    readonly directory?: string;
  };
  readonly exports?: unknown;
  readonly bin?: Readonly<Record<string, string>>;
  readonly files?: readonly string[];
  readonly scripts?: Readonly<Record<string, string>>;
  readonly publishConfig?: {
    readonly access?: string;
    readonly exports?: unknown;
    readonly bin?: Readonly<Record<string, string>>;
  };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

/** One workspace project. */
export interface Project {
  /** Its folder relative to the repository root, e.g. `packages/client`. */
  readonly dir: string;
  readonly manifest: Manifest;
}

/**
 * Every project of the workspace (packages/*, apps/*, programs/*), sorted by folder.
 * @param root the repository root; default {@link WORKSPACE_ROOT}.
 * @throws Error when a package.json cannot be read or parsed.
 */
export function workspaceProjects(root: string = WORKSPACE_ROOT): Project[] {
  const projects: Project[] = [];
  for (const parent of PROJECT_PARENTS) {
    for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) {
        continue;
      }
      const dir = `${parent}/${entry.name}`;
      let text: string;
      try {
        text = readFileSync(join(root, dir, "package.json"), "utf8");
      } catch {
        continue;
      }
      projects.push({ dir, manifest: JSON.parse(text) as Manifest });
    }
  }
  return projects.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** The projects that are published to the npm registry (`private` absent or false). */
export function publicProjects(root: string = WORKSPACE_ROOT): Project[] {
  return workspaceProjects(root).filter((project) => project.manifest.private !== true);
}
