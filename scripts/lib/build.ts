/**
 * The production build (`pnpm build`, and `pnpm start` when a bundle is missing or stale): each
 * process `pnpm start` runs is bundled by esbuild into one ESM file for Node 20 with a source map
 * (`apps/<app>/dist/main.js`, `scripts/dist/postgres-host.js`), so it runs with plain `node`.
 *
 * - Workspace packages (`@verifiable-memory/*`) are bundled in; every other npm package stays external. An
 *   external is imported from wherever the importing workspace package would find it: the build
 *   links each one (relative symlink to the very directory the importer resolves, pnpm's layout)
 *   into `<outdir>/node_modules`, so a dependency that only a workspace package declares (e.g.
 *   `postgres` of @verifiable-memory/db-schema) resolves from the bundle too. Two importers resolving one name
 *   to different directories fail the build.
 * - `import.meta.url` in bundled sources is rewritten to the URL of the original source file,
 *   computed relative to the bundle (`new URL("../../../packages/db-schema/src/migrate.ts",
 *   import.meta.url).href`), so reads relative to a module (the drizzle migrations, the program's
 *   `.so`, Scalar's bundle found by `createRequire`, the connect page's sources) find the same
 *   files as under tsx. `import.meta.dirname`/`filename` are refused (they would not be rewritten).
 * - A `createRequire` banner gives bundled CommonJS-style code a working `require`.
 * The output therefore runs in place: it needs the checkout (assets) and its `node_modules`.
 *
 * The web console (apps/console) is built by Vite, not esbuild: {@link ensureBuilt} of the real
 * targets also builds it when stale (apps/console/build/freshness.ts keeps its own record), and
 * `pnpm build` always rebuilds it.
 *
 * Freshness: beside each bundle, `<name>.build.json` records a SHA-256 over the bundled input
 * files (esbuild's metafile), the package.json of every workspace package they belong to,
 * pnpm-lock.yaml, this file and esbuild's version. A bundle is current while that digest matches;
 * checking reads those files once (a few milliseconds).
 * @module
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, readFile, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { basename, dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, version as esbuildVersion, type Plugin } from "esbuild";
import { ensureConsoleBuilt } from "../../apps/console/build/freshness.js";

/** One bundle: an entry point and where its output goes, both relative to the repository root. */
export interface BuildTarget {
  /** Short name, e.g. `core-api` (log prefix, messages). */
  readonly name: string;
  /** The TypeScript entry point, e.g. `apps/core-api/src/main.ts`. */
  readonly entry: string;
  /** The bundle, e.g. `apps/core-api/dist/main.js` (its map is `<outfile>.map`). */
  readonly outfile: string;
}

/** Every process `pnpm start` runs (scripts/start.ts), in that order. */
export const BUILD_TARGETS: readonly BuildTarget[] = [
  {
    name: "postgres-host",
    entry: "scripts/lib/postgres-host.ts",
    outfile: "scripts/dist/postgres-host.js",
  },
  {
    name: "local-chain",
    entry: "apps/local-chain/src/main.ts",
    outfile: "apps/local-chain/dist/main.js",
  },
  { name: "core-api", entry: "apps/core-api/src/main.ts", outfile: "apps/core-api/dist/main.js" },
  {
    name: "extension-api",
    entry: "apps/extension-api/src/main.ts",
    outfile: "apps/extension-api/dist/main.js",
  },
  {
    name: "anchor-service",
    entry: "apps/anchor-service/src/main.ts",
    outfile: "apps/anchor-service/dist/main.js",
  },
];

/** The web console's build, for {@link ensureBuilt}'s report (built by Vite, not by esbuild). */
export const CONSOLE_TARGET: BuildTarget = {
  name: "console",
  entry: "apps/console/index.html",
  outfile: "apps/console/dist/index.html",
};

/** The repository root (this file is `scripts/lib/build.ts`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Where to build from and to. */
export interface BuildOptions {
  /** Repository root: entries are relative to it; default {@link REPO_ROOT}. */
  readonly root?: string;
  /**
   * Root of the output tree: each bundle goes to `<outRoot>/<outfile>`; default `root` (the real
   * `dist/` folders). A temporary directory keeps a build away from a running service's bundles.
   */
  readonly outRoot?: string;
  /** Targets to build or check; default {@link BUILD_TARGETS}. */
  readonly targets?: readonly BuildTarget[];
}

/** What {@link buildTargets} produced for one target. */
export interface BuiltBundle {
  readonly target: BuildTarget;
  /** Absolute path of the bundle. */
  readonly outfile: string;
  /** Size of the bundle in bytes. */
  readonly bytes: number;
  /** Number of source files bundled. */
  readonly inputs: number;
  /** External npm packages the bundle imports (linked into `<outdir>/node_modules`). */
  readonly externals: readonly string[];
  /** Wall time of this target's build, milliseconds. */
  readonly ms: number;
}

/** The freshness record written beside each bundle (`<outfile minus .js>.build.json`). */
interface BuildRecord {
  readonly format: number;
  readonly digest: string;
  /** Bundled source files, relative to the root. */
  readonly inputs: readonly string[];
  /** External package name → link target (absolute, real path). */
  readonly externals: Readonly<Record<string, string>>;
}

/** Version of {@link BuildRecord}; a record of another format makes its bundle stale. */
const RECORD_FORMAT = 1;

/** Freshness of one bundle, as {@link bundleState} reports it. */
export type BundleState =
  | { readonly current: true }
  | { readonly current: false; readonly reason: string };

/**
 * The target of {@link BUILD_TARGETS} named `name` (e.g. `core-api`).
 * @throws Error naming `name` when there is none.
 */
export function targetNamed(name: string): BuildTarget {
  const target = BUILD_TARGETS.find((t) => t.name === name);
  if (!target) {
    throw new Error(`no build target named ${name}`);
  }
  return target;
}

/** Absolute path of `target`'s bundle under `outRoot` (default the repository root). */
export function bundlePath(target: BuildTarget, outRoot: string = REPO_ROOT): string {
  return resolve(outRoot, target.outfile);
}

/** Absolute path of the freshness record beside `target`'s bundle. */
function recordPath(target: BuildTarget, outRoot: string): string {
  const outfile = bundlePath(target, outRoot);
  return join(dirname(outfile), `${basename(outfile, extname(outfile))}.build.json`);
}

/**
 * Bundles every target (in parallel) and writes, per target, the bundle, its source map, the
 * links of its external packages and its freshness record. Files are written under temporary
 * names and renamed into place (the record last), so a process starting meanwhile, or another
 * build of the same tree, never reads half a bundle.
 * @returns one {@link BuiltBundle} per target, in the order given.
 * @throws Error from esbuild when a source does not build (with esbuild's messages), or naming the
 *   package when two importers resolve one external package to different directories or an
 *   external package cannot be found from its importer.
 */
export async function buildTargets(options: BuildOptions = {}): Promise<BuiltBundle[]> {
  const root = resolve(options.root ?? REPO_ROOT);
  const outRoot = resolve(options.outRoot ?? root);
  const targets = options.targets ?? BUILD_TARGETS;
  return Promise.all(targets.map((target) => buildOne(target, root, outRoot)));
}

/** Builds one target (see {@link buildTargets}). */
async function buildOne(target: BuildTarget, root: string, outRoot: string): Promise<BuiltBundle> {
  const started = performance.now();
  const outfile = bundlePath(target, outRoot);
  const outdir = dirname(outfile);
  const externals = new Map<string, string>();
  const sources = new Map<string, Buffer>();
  const result = await build({
    absWorkingDir: root,
    entryPoints: [resolve(root, target.entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    // The source map names files relative to the bundle; their contents stay in the sources.
    sourcesContent: false,
    legalComments: "none",
    write: false,
    metafile: true,
    logLevel: "warning",
    banner: {
      js: 'import { createRequire as __svcCreateRequire } from "node:module";\nconst require = __svcCreateRequire(import.meta.url);',
    },
    plugins: [externalPackages(externals), sourceFiles(outdir, sources)],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => relative(root, resolve(root, input)))
    .sort();
  await mkdir(outdir, { recursive: true });
  for (const [name, target] of externals) {
    await linkPackage(join(outdir, "node_modules", name), target);
  }
  let bytes = 0;
  // The map before the bundle, so a bundle in place always has its map.
  const files = [...result.outputFiles].sort((a, b) =>
    a.path.endsWith(".map") === b.path.endsWith(".map") ? 0 : a.path.endsWith(".map") ? -1 : 1,
  );
  for (const file of files) {
    if (file.path === outfile) {
      bytes = file.contents.byteLength;
    }
    await writeAtomically(file.path, file.contents);
  }
  const record: BuildRecord = {
    format: RECORD_FORMAT,
    // Over the very bytes esbuild bundled: an edit during the build makes the bundle stale.
    digest: digestOf(root, inputs, Object.fromEntries(externals), (path) => sources.get(path)),
    inputs,
    externals: Object.fromEntries([...externals].sort(([a], [b]) => a.localeCompare(b))),
  };
  await writeAtomically(recordPath(target, outRoot), `${JSON.stringify(record, null, 2)}\n`);
  return {
    target,
    outfile,
    bytes,
    inputs: inputs.length,
    externals: [...externals.keys()].sort(),
    ms: performance.now() - started,
  };
}

/**
 * Whether `target`'s bundle under `outRoot` is current: it exists, and its record's digest
 * matches the sources, package.json files, lockfile and builder as they are now (see the module
 * documentation). Never throws: an unreadable record or input is reported as a reason.
 */
export function bundleState(
  target: BuildTarget,
  options: { readonly root?: string; readonly outRoot?: string } = {},
): BundleState {
  const root = resolve(options.root ?? REPO_ROOT);
  const outRoot = resolve(options.outRoot ?? root);
  const outfile = bundlePath(target, outRoot);
  if (!existsSync(outfile)) {
    return { current: false, reason: "not built" };
  }
  let record: BuildRecord;
  try {
    record = JSON.parse(readFileSync(recordPath(target, outRoot), "utf8")) as BuildRecord;
  } catch {
    return { current: false, reason: "no build record" };
  }
  if (record.format !== RECORD_FORMAT) {
    return { current: false, reason: "built by another version of the build" };
  }
  for (const [name, linked] of Object.entries(record.externals)) {
    if (!existsSync(linked)) {
      return { current: false, reason: `dependency ${name} is no longer installed` };
    }
  }
  try {
    if (digestOf(root, record.inputs, record.externals) !== record.digest) {
      return { current: false, reason: "sources changed" };
    }
  } catch {
    return { current: false, reason: "a source file is gone" };
  }
  return { current: true };
}

/** What {@link ensureBuilt} did. */
export interface EnsureBuiltResult {
  /** The targets that were stale (and are now rebuilt), with the reason. */
  readonly rebuilt: readonly { readonly target: BuildTarget; readonly reason: string }[];
  /** Wall time, milliseconds (the check alone when nothing was rebuilt). */
  readonly ms: number;
}

/**
 * Rebuilds the targets whose bundle is missing or stale ({@link bundleState}); the others are
 * left alone. With the default targets, root and output (the checkout's own build), the web
 * console is built too when stale ({@link CONSOLE_TARGET}). `pnpm start` calls this before
 * starting anything.
 * @throws as {@link buildTargets}; Error from the console's build (e.g. over its first-load
 *   budget).
 */
export async function ensureBuilt(options: BuildOptions = {}): Promise<EnsureBuiltResult> {
  const started = performance.now();
  const targets = options.targets ?? BUILD_TARGETS;
  const stale: { target: BuildTarget; reason: string }[] = [];
  for (const target of targets) {
    const state = bundleState(target, options);
    if (!state.current) {
      stale.push({ target, reason: state.reason });
    }
  }
  if (stale.length > 0) {
    await buildTargets({ ...options, targets: stale.map((s) => s.target) });
  }
  const checkout =
    options.targets === undefined &&
    options.outRoot === undefined &&
    resolve(options.root ?? REPO_ROOT) === REPO_ROOT;
  if (checkout) {
    const reason = await ensureConsoleBuilt();
    if (reason !== null) {
      stale.push({ target: CONSOLE_TARGET, reason });
    }
  }
  return { rebuilt: stale, ms: performance.now() - started };
}

/**
 * SHA-256 over the builder (this file, esbuild's version, the record format), pnpm-lock.yaml,
 * the link targets, and every input file with the package.json of the package it belongs to.
 * An input's bytes come from `known` (absolute path → bytes) when it has them, else from disk.
 * @throws when an input file cannot be read.
 */
function digestOf(
  root: string,
  inputs: readonly string[],
  externals: Readonly<Record<string, string>>,
  known: (path: string) => Buffer | undefined = () => undefined,
): string {
  const hash = createHash("sha256");
  const add = (label: string, content: string | Buffer) => {
    hash.update(`${label}\0${content.length}\0`);
    hash.update(content);
  };
  add("format", `${RECORD_FORMAT} esbuild ${esbuildVersion}`);
  add("builder", readFileSync(fileURLToPath(import.meta.url)));
  const lockfile = join(root, "pnpm-lock.yaml");
  add("lockfile", existsSync(lockfile) ? readFileSync(lockfile) : "");
  for (const name of Object.keys(externals).sort()) {
    add(`external ${name}`, externals[name] ?? "");
  }
  const manifests = new Set<string>();
  for (const input of inputs) {
    const path = resolve(root, input);
    add(input, known(path) ?? readFileSync(path));
    const manifest = packageManifest(dirname(path), root);
    if (manifest) {
      manifests.add(manifest);
    }
  }
  for (const manifest of [...manifests].sort()) {
    add(relative(root, manifest), readFileSync(manifest));
  }
  return hash.digest("hex");
}

/** The nearest package.json at or above `dir`, not above `root`; null when none. */
function packageManifest(dir: string, root: string): string | null {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, "package.json");
    if (existsSync(candidate)) {
      return candidate;
    }
    if (current === root || dirname(current) === current) {
      return null;
    }
  }
}

/** The package name of a bare specifier: `drizzle-orm/pg-core` → `drizzle-orm`, `@a/b/c` → `@a/b`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/**
 * The real directory of package `name` as Node would find it from `dir` (the nearest
 * `node_modules/<name>` upwards, symlinks resolved), or null.
 */
function findPackage(name: string, dir: string): string | null {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, "node_modules", name);
    if (existsSync(candidate)) {
      return realpathSync(candidate);
    }
    if (dirname(current) === current) {
      return null;
    }
  }
}

/**
 * esbuild plugin: every bare import that is not `@verifiable-memory/*` or a Node built-in stays external, and
 * its package directory as resolved from the importer is recorded in `links` (name → real path).
 */
function externalPackages(links: Map<string, string>): Plugin {
  return {
    name: "svc-external-packages",
    setup(build) {
      // Bare specifiers only: not relative, not absolute, not a package's own `#imports`.
      build.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.path.startsWith("@verifiable-memory/") || isBuiltin(args.path)) {
          return undefined;
        }
        const name = packageName(args.path);
        const found = findPackage(name, args.resolveDir);
        if (!found) {
          return { errors: [{ text: `cannot find package ${name} from ${args.importer}` }] };
        }
        const known = links.get(name);
        if (known && known !== found) {
          return {
            errors: [
              {
                text: `${name} resolves to two installations (${known} and ${found}); one bundle can import only one`,
              },
            ],
          };
        }
        links.set(name, found);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * esbuild plugin: loads every bundled source file outside node_modules itself, keeping its bytes
 * in `sources` (absolute path → bytes, for the freshness digest), and in each one `import.meta.url`
 * becomes the URL of that source file, computed at run time relative to the bundle in `outdir`.
 */
function sourceFiles(outdir: string, sources: Map<string, Buffer>): Plugin {
  return {
    name: "svc-source-files",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.split(sep).includes("node_modules")) {
          return undefined;
        }
        const bytes = await readFile(args.path);
        sources.set(args.path, bytes);
        const text = bytes.toString("utf8");
        const loader = extname(args.path).endsWith("ts") ? "ts" : "js";
        if (!text.includes("import.meta")) {
          return { contents: text, loader };
        }
        const refused = /import\.meta\.(dirname|filename)\b/.exec(text);
        if (refused) {
          return {
            errors: [
              {
                text: `import.meta.${refused[1]} is not supported by the build; use import.meta.url`,
              },
            ],
          };
        }
        const fromBundle = relative(outdir, args.path).split(sep).join("/");
        const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        return { contents: text.replace(/\bimport\.meta\.url\b/g, url), loader };
      });
    },
  };
}

/** Makes `path` a relative symlink to the directory `target`, replacing what was there. */
async function linkPackage(path: string, target: string): Promise<void> {
  const wanted = relative(dirname(path), target);
  const current = await readlink(path).catch(() => null);
  if (current === wanted) {
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await symlink(wanted, temporary, "junction");
  await rename(temporary, path).catch(async (error: unknown) => {
    await rm(temporary, { force: true });
    throw error;
  });
}

/** Writes `path` through a temporary file in the same directory and a rename. */
async function writeAtomically(path: string, contents: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}
