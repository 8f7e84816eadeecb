/**
 * The rules every package.json of the workspace follows (docs/releasing.md): one version of each
 * third-party package, pinned in pnpm-workspace.yaml's catalog; workspace packages referenced as
 * `workspace:*`; the licence on every project.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPENDENCY_FIELDS, WORKSPACE_ROOT, workspaceProjects } from "../lib/workspace.js";

const projects = workspaceProjects();
const workspaceNames = new Set(projects.map((project) => project.manifest.name));
const rootManifest = {
  dir: ".",
  manifest: JSON.parse(readFileSync(join(WORKSPACE_ROOT, "package.json"), "utf8")),
};

describe("package manifests", () => {
  it("finds the workspace's projects", () => {
    expect(projects.length).toBeGreaterThan(10);
    expect(workspaceNames).toContain("@verifiable-memory/client");
  });

  it("take every third-party version from the catalog and every project from the workspace", () => {
    const offenders: string[] = [];
    for (const { dir, manifest } of [rootManifest, ...projects]) {
      for (const field of DEPENDENCY_FIELDS) {
        for (const [name, specifier] of Object.entries(manifest[field] ?? {})) {
          const want = workspaceNames.has(name) ? "workspace:*" : "catalog:";
          if (specifier !== want) {
            offenders.push(`${dir}/package.json ${field}.${name}: ${specifier} (want ${want})`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("name every catalog entry some project uses", () => {
    const workspaceYaml = readFileSync(join(WORKSPACE_ROOT, "pnpm-workspace.yaml"), "utf8");
    const block = /^catalog:\n((?: {2}.*\n)+)/m.exec(workspaceYaml)?.[1] ?? "";
    const catalog = [...block.matchAll(/^ {2}"?([^"]+?)"?: /gm)].map((m) => m[1]);
    expect(catalog.length).toBeGreaterThan(10);
    const used = new Set(
      [rootManifest, ...projects].flatMap(({ manifest }) =>
        DEPENDENCY_FIELDS.flatMap((field) => Object.keys(manifest[field] ?? {})),
      ),
    );
    expect(catalog.filter((name) => !used.has(name as string))).toEqual([]);
  });

  it("carry the Apache-2.0 licence", () => {
    for (const { dir, manifest } of [rootManifest, ...projects]) {
      expect(manifest.license, dir).toBe("Apache-2.0");
    }
  });
});
