/**
 * The workspace's own source files, read from disk for the checks of scripts/test (the line
 * limit, the citations): TypeScript and JavaScript under packages/*, apps/* and programs/* (their
 * sources, tests and scripts), scripts/, bench/ and e2e/, without dependencies, build output or
 * generated code.
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { WORKSPACE_ROOT } from "./workspace.js";

/** Folders never walked: dependencies, build output, caches, generated code. */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  "node_modules",
  "dist",
  "target",
  "generated",
  "coverage",
  ".turbo",
  ".git",
]);

/** The extensions of source files. */
const SOURCE_EXTENSION = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** The top folders of the workspace's code: each project's folder, scripts, bench and e2e. */
const ROOTS = ["packages", "apps", "programs", "scripts", "bench", "e2e"] as const;

/** Every file under `folder` (absolute) whose name passes `keep`, skipping {@link SKIPPED_FOLDERS}. */
function walk(folder: string, keep: (name: string) => boolean, out: string[]): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith(".")) {
        walk(join(folder, entry.name), keep, out);
      }
    } else if (entry.isFile() && keep(entry.name)) {
      out.push(join(folder, entry.name));
    }
  }
}

/**
 * The workspace's source files, as paths relative to the repository root (`/`-separated), sorted.
 * Generated code (any `generated` folder) is left out.
 */
export function sourceFiles(): string[] {
  const out: string[] = [];
  for (const root of ROOTS) {
    const folder = join(WORKSPACE_ROOT, root);
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      walk(folder, (name) => SOURCE_EXTENSION.test(name), out);
    }
  }
  return out.map((path) => relative(WORKSPACE_ROOT, path).split("\\").join("/")).sort();
}

/**
 * The workspace's documentation: README.md of the root and of every project, and docs/*.md,
 * as paths relative to the repository root, sorted.
 */
export function documentationFiles(): string[] {
  const out: string[] = [];
  walk(join(WORKSPACE_ROOT, "docs"), (name) => name.endsWith(".md"), out);
  for (const parent of ["packages", "apps", "programs"]) {
    const folder = join(WORKSPACE_ROOT, parent);
    for (const project of readdirSync(folder, { withFileTypes: true })) {
      const readme = join(folder, project.name, "README.md");
      if (project.isDirectory() && statSync(readme, { throwIfNoEntry: false })?.isFile()) {
        out.push(readme);
      }
    }
  }
  out.push(join(WORKSPACE_ROOT, "README.md"));
  return out.map((path) => relative(WORKSPACE_ROOT, path).split("\\").join("/")).sort();
}
