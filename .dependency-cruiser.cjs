/**
 * Which part of the tree may import which (docs/architecture.md "Layers"), checked by `pnpm lint`:
 * packages and programs never import an app, an app never imports another app, and no file
 * imports another workspace's test folder. Relative paths, workspace names and type-only imports
 * all count (`tsPreCompilationDeps`). scripts/test/dependency-rules.test.ts proves each rule fails.
 */
const WORKSPACE_TEST = "^(packages|apps|programs)/[^/]+/test/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "packages-must-not-import-apps",
      comment:
        "A package (or program) is used by apps; it never imports one, not even in tests or scripts.",
      severity: "error",
      from: { path: "^(packages|programs)/" },
      to: { path: "^apps/" },
    },
    {
      name: "apps-must-not-import-apps",
      comment: "An app stands alone: what two apps share belongs in a package.",
      severity: "error",
      from: { path: "^apps/([^/]+)/" },
      to: { path: "^apps/", pathNot: "^apps/$1/" },
    },
    {
      name: "no-foreign-test-folder",
      comment: "Test support shared between workspaces lives in @verifiable-memory/testkit.",
      severity: "error",
      from: { path: "^(packages|apps|programs)/([^/]+)/" },
      to: { path: WORKSPACE_TEST, pathNot: "^$1/$2/test/" },
    },
    {
      name: "no-test-folder-from-the-top",
      comment:
        "scripts/, bench/, infra/ and e2e/ take test support from @verifiable-memory/testkit.",
      severity: "error",
      from: { path: "^(scripts|bench|infra|e2e)/" },
      to: { path: WORKSPACE_TEST },
    },
    {
      name: "workspaces-by-name",
      comment:
        "Another workspace is imported by its package name (its exports), never by a relative path into it.",
      severity: "error",
      from: { path: "^(packages|apps|programs)/([^/]+)/" },
      to: { path: "^(packages|apps|programs)/", pathNot: "^$1/$2/", dependencyTypes: ["local"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|build-output|\\.turbo)/" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", ".json"],
      conditionNames: ["import", "types", "node", "browser", "default"],
      exportsFields: ["exports"],
      mainFields: ["module", "main", "types"],
    },
  },
};
