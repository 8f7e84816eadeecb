/**
 * The rules every package.json of the workspace follows (docs/releasing.md): one version of each
 * third-party package, pinned in pnpm-workspace.yaml's catalog; workspace packages referenced as
 * `workspace:*`; the licence on every project; the nine public packages' published shape (built
 * `dist/` through publishConfig, bins, engines, access) and nothing else public.
 * @module
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEPENDENCY_FIELDS,
  publicProjects,
  WORKSPACE_ROOT,
  workspaceProjects,
} from "../lib/workspace.js";

/** The published packages (docs/releasing.md); every other project is private. */
const PUBLIC = [
  "@verifiable-memory/cli",
  "@verifiable-memory/client",
  "@verifiable-memory/commitment-account",
  "@verifiable-memory/mcp",
  "@verifiable-memory/memory-schemas",
  "@verifiable-memory/merkle-log",
  "@verifiable-memory/signed-note",
  "@verifiable-memory/siws-message",
  "@verifiable-memory/verifier",
];

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

  it("publish exactly the nine public packages, built, from dist/", () => {
    const published = publicProjects();
    expect(published.map((project) => project.manifest.name).sort()).toEqual(PUBLIC);
    for (const { dir, manifest } of published) {
      expect(manifest.version, dir).toBe("0.1.0");
      expect(manifest.type, dir).toBe("module");
      expect(manifest.engines?.node, dir).toBe(">=20.12");
      expect(manifest.files, dir).toEqual(["dist"]);
      expect(manifest.repository?.directory, dir).toBe(dir);
      expect(manifest.publishConfig?.access, dir).toBe("public");
      const build =
        /^tsx \.\.\/\.\.\/scripts\/build-package\.ts(?: --bundle((?: [\w./-]+\.js)+))?$/.exec(
          manifest.scripts?.build ?? "",
        );
      expect(build, `${dir} scripts.build: ${manifest.scripts?.build}`).not.toBeNull();
      // A bundled build deletes the per-module files its bundles hold (scripts/lib/bundle-dist.ts):
      // every published entry must then be one of the bundles.
      const bundled = build?.[1]?.trim().split(" ");
      if (bundled !== undefined) {
        const entries = [
          ...JSON.stringify(manifest.publishConfig?.exports ?? {}).matchAll(
            /"\.\/dist\/([^"]+\.js)"/g,
          ),
        ].map((match) => match[1]);
        const bins = Object.values(manifest.publishConfig?.bin ?? {}).map((bin) =>
          String(bin).replace(/^\.\/dist\//, ""),
        );
        expect([...new Set([...entries, ...bins])].sort(), dir).toEqual([...bundled].sort());
      }
      // Every published entry is built JavaScript or its declarations, for every entry the
      // workspace has.
      const exportsText = JSON.stringify(manifest.publishConfig?.exports ?? {});
      expect(exportsText, dir).not.toContain("/src/");
      expect(Object.keys(manifest.publishConfig?.exports ?? {}), dir).toEqual(
        Object.keys((manifest.exports ?? {}) as object),
      );
      for (const target of exportsText.match(/:"\.\/[^"]+"/g) ?? []) {
        expect(target, dir).toMatch(/^:"\.\/dist\/.+\.(js|d\.ts)"$/);
      }
      expect(Object.keys(manifest.publishConfig?.bin ?? {}), dir).toEqual(
        Object.keys(manifest.bin ?? {}),
      );
      for (const bin of Object.values(manifest.publishConfig?.bin ?? {})) {
        expect(bin, dir).toMatch(/^\.\/dist\/[\w-]+\.js$/);
        expect(manifest.sideEffects, dir).toEqual([bin]);
      }
      if (manifest.bin === undefined) {
        expect(manifest.sideEffects, dir).toBe(false);
      }
      // The launchers of the workspace's bins need tsx; the published bins do not.
      expect(manifest.dependencies?.tsx, dir).toBeUndefined();
    }
  });

  it("leave devDependencies on private projects out of the packed manifest (.pnpmfile.cjs)", () => {
    const { hooks } = createRequire(import.meta.url)(join(WORKSPACE_ROOT, ".pnpmfile.cjs")) as {
      hooks: { beforePacking: (pkg: Record<string, unknown>) => Record<string, unknown> };
    };
    const privateNames = new Set(
      projects
        .filter((project) => project.manifest.private)
        .map((project) => project.manifest.name),
    );
    let dropped = 0;
    for (const { dir, manifest } of publicProjects()) {
      const before = { ...manifest.devDependencies };
      const packed = hooks.beforePacking({ ...structuredClone(manifest) });
      const after = (packed.devDependencies ?? {}) as Record<string, string>;
      const kept = Object.fromEntries(
        Object.entries(before).filter(([name]) => !privateNames.has(name)),
      );
      expect(after, dir).toEqual(kept);
      expect(packed.dependencies, dir).toEqual(manifest.dependencies);
      dropped += Object.keys(before).length - Object.keys(after).length;
    }
    // The verifier and mcp test against the local chain: their manifests name private projects.
    expect(dropped).toBeGreaterThan(0);
  });
});
