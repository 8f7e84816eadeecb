// pnpm hooks of the workspace (https://pnpm.io/pnpmfile). beforePacking edits the package.json
// that `pnpm pack` and `pnpm publish` put in a tarball, never the file on disk: a public package's
// devDependencies on private workspace projects (test helpers such as the local chain) are left
// out, since no registry holds them and they say nothing to a user. See docs/releasing.md
// ("The packed manifest"); scripts/test-dist/dist.test.ts checks the packed manifests.
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

/** The folders holding workspace projects (pnpm-workspace.yaml `packages`). */
const PROJECT_PARENTS = ["packages", "apps", "programs"];

/** The names of the workspace's private projects (e2e included), read once. */
let privateNames;

function privateProjectNames() {
  if (privateNames === undefined) {
    privateNames = new Set();
    const dirs = [join(__dirname, "e2e")];
    for (const parent of PROJECT_PARENTS) {
      for (const entry of readdirSync(join(__dirname, parent), { withFileTypes: true })) {
        if (entry.isDirectory()) {
          dirs.push(join(__dirname, parent, entry.name));
        }
      }
    }
    for (const dir of dirs) {
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      if (manifest.private === true) {
        privateNames.add(manifest.name);
      }
    }
  }
  return privateNames;
}

/** Drops devDependencies on private workspace projects from the packed manifest `pkg`. */
function beforePacking(pkg) {
  const names = privateProjectNames();
  if (pkg.devDependencies) {
    for (const name of Object.keys(pkg.devDependencies)) {
      if (names.has(name)) {
        delete pkg.devDependencies[name];
      }
    }
    if (Object.keys(pkg.devDependencies).length === 0) {
      delete pkg.devDependencies;
    }
  }
  return pkg;
}

module.exports = { hooks: { beforePacking } };
