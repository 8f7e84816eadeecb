/**
 * The production build: scripts/lib/build.ts bundles every process `pnpm start` runs into a
 * temporary output tree (the real `dist/` folders stay untouched, so a running
 * service is not disturbed), and the bundles run with plain node (scripts/lib/processes.ts
 * `startApp`, no tsx anywhere): the local chain (which loads the committed program `.so`),
 * core-api on an empty database (it applies the drizzle migrations found from the bundle, answers
 * `/readyz`, serves Scalar's bundle at `/docs/scalar.js`, signs a wallet in and stores a memory),
 * extension-api (its connect page script is bundled at start from `connect/main.ts`) and the
 * anchor service. A small fixture tree checks the parts the real apps cannot show in isolation:
 * a dependency only a library declares, `import.meta.url`-relative reads, and freshness.
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILD_TARGETS,
  type BuildTarget,
  type BuiltBundle,
  buildTargets,
  bundlePath,
  bundleState,
  ensureBuilt,
  REPO_ROOT,
  targetNamed,
} from "../lib/build.js";
import { writeSolanaKeypairFile } from "../lib/first-run.js";
import { type AppProcess, nodeArgs, startApp, stopApp, waitHealthy } from "../lib/processes.js";
import { loadWallet } from "../lib/wallet.js";

const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

let outRoot: string;
let built: BuiltBundle[];
const apps: AppProcess[] = [];
const output: string[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  outRoot = await mkdtemp(join(tmpdir(), "svc-build-test-"));
  // The local chain keeps state in DATA_DIR here; PostgreSQL never runs from this directory.
  await chmod(outRoot, 0o755);
  built = await buildTargets({ outRoot });
}, 120_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => stopApp(app, 5_000)));
  for (const database of databases) {
    await database.close();
  }
  if (outRoot) {
    await rm(outRoot, { recursive: true, force: true });
  }
}, 60_000);

/** A free TCP port on 127.0.0.1 (with `pair`, `port + 1` is free too: the chain's WebSocket). */
async function freePort(pair = false): Promise<number> {
  const listen = (port: number) =>
    new Promise<number>((done) => {
      const server = createServer();
      server.once("error", () => done(0));
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => done(typeof address === "object" && address ? address.port : 0));
      });
    });
  for (;;) {
    const port = await listen(0);
    if (port !== 0 && (!pair || (port < 65_535 && (await listen(port + 1)) !== 0))) {
      return port;
    }
  }
}

/** Starts a bundle of the temporary tree as `pnpm start` does, collecting its output. */
function startBuilt(name: string, env: NodeJS.ProcessEnv): AppProcess {
  const entry = bundlePath(targetNamed(name), outRoot);
  expect(nodeArgs(entry)).not.toContain("tsx");
  const app = startApp(name, entry, env, REPO_ROOT, { output: (line) => output.push(line) });
  apps.push(app);
  return app;
}

/** The environment of the apps: the machine's without NODE_OPTIONS (no tsx loader sneaks in). */
function appEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _loader, DATABASE_URL: _database, ...inherited } = process.env;
  return {
    ...inherited,
    JWT_SECRET: "test-secret-that-is-long-enough-0123456789",
    MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    SIWS_DOMAIN: "localhost:8787",
    SIWS_URI: "http://localhost:8787",
    SIWS_CHAIN_ID: "localnet",
    SERVICE_NAME: "Verifiable Memory",
    PUBLIC_BASE_URL: "http://localhost:8787",
    SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
    ...extra,
  };
}

async function ready(app: AppProcess, url: string): Promise<void> {
  try {
    await waitHealthy(app, url, 90_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output.slice(-40).join("\n")}`);
  }
}

async function json<T>(url: string, init: { body?: unknown; bearer?: string } = {}) {
  const res = await fetch(url, {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

describe("pnpm build (scripts/lib/build.ts)", () => {
  it("bundles every process pnpm start runs, workspace packages inside, npm packages linked", () => {
    expect(built.map((b) => b.target.name).sort()).toEqual(
      ["anchor-service", "core-api", "extension-api", "local-chain", "postgres-host"].sort(),
    );
    for (const bundle of built) {
      expect(bundle.outfile).toBe(bundlePath(bundle.target, outRoot));
      const code = readFileSync(bundle.outfile, "utf8");
      expect(
        code.startsWith('import { createRequire as __svcCreateRequire } from "node:module";'),
      ).toBe(true);
      expect(code).not.toMatch(/from "@verifiable-memory\//);
      expect(code).toContain(`//# sourceMappingURL=${bundle.outfile.split("/").at(-1)}.map`);
      expect(existsSync(`${bundle.outfile}.map`)).toBe(true);
      for (const name of bundle.externals) {
        expect(
          existsSync(join(dirname(bundle.outfile), "node_modules", name, "package.json")),
        ).toBe(true);
      }
      expect(bundleState(bundle.target, { outRoot })).toEqual({ current: true });
    }
    // core-api imports postgres.js only through @verifiable-memory/db-schema: linked beside the bundle anyway.
    const core = built.find((b) => b.target.name === "core-api");
    expect(core?.externals).toEqual(expect.arrayContaining(["postgres", "pino", "hono"]));
    expect(core?.externals.some((name) => name.startsWith("@verifiable-memory/"))).toBe(false);
  });

  it("runs the built apps with plain node: local chain, core-api, extension-api, anchor service", async () => {
    const database = await createTestDatabase({ empty: true, max: 1 });
    databases.push(database);
    const chainPort = await freePort(true);
    const chainDir = join(outRoot, "chain-data");
    const chain = startBuilt(
      "local-chain",
      appEnv({ LOCAL_CHAIN_PORT: String(chainPort), DATA_DIR: chainDir }),
    );
    const rpcUrl = `http://127.0.0.1:${chainPort}`;
    await ready(chain, `${rpcUrl}/readyz`);
    const program = await json<{ result: { value: { executable: boolean } | null } }>(rpcUrl, {
      body: { jsonrpc: "2.0", id: 1, method: "getAccountInfo", params: [LOCAL_PROGRAM_ID] },
    });
    expect(program.body.result.value?.executable).toBe(true);

    // core-api first, alone: it migrates the empty database (the drizzle folder of @verifiable-memory/db-schema).
    const corePort = await freePort();
    const shared = { DATABASE_URL: database.url, CHAIN_RPC_URL: rpcUrl };
    const core = startBuilt("core-api", appEnv({ ...shared, PORT: String(corePort) }));
    const coreUrl = `http://127.0.0.1:${corePort}`;
    await ready(core, `${coreUrl}/readyz`);
    expect((await fetch(`${coreUrl}/readyz`)).status).toBe(200);
    const scalar = await fetch(`${coreUrl}/docs/scalar.js`);
    expect(scalar.status).toBe(200);
    expect((await scalar.text()).length).toBeGreaterThan(100_000);

    // A wallet signs in, mints an API key, stores a memory and reads it back.
    const wallet = loadWallet(undefined);
    const challenge = await json<{ message: string }>(`${coreUrl}/auth/challenge`, {
      body: { publicKey: wallet.publicKey },
    });
    expect(challenge.status).toBe(200);
    const session = await json<{ token: string }>(`${coreUrl}/auth/verify`, {
      body: {
        publicKey: wallet.publicKey,
        message: challenge.body.message,
        signature: wallet.sign(challenge.body.message),
      },
    });
    expect(session.status).toBe(200);
    const key = await json<{ key: string }>(`${coreUrl}/keys`, {
      body: { label: "build test" },
      bearer: session.body.token,
    });
    expect(key.status).toBe(201);
    const written = await json<{ id: string }>(`${coreUrl}/memories`, {
      body: { content: "stored by the built core-api", metadata: {} },
      bearer: key.body.key,
    });
    expect(written.status).toBe(201);
    const read = await json<{ content: string }>(`${coreUrl}/memories/${written.body.id}`, {
      bearer: key.body.key,
    });
    expect(read.body.content).toBe("stored by the built core-api");

    const extensionPort = await freePort();
    const extension = startBuilt(
      "extension-api",
      appEnv({ ...shared, EXTENSION_PORT: String(extensionPort) }),
    );
    const anchorPort = await freePort();
    const keypair = join(outRoot, "authority.json");
    await writeSolanaKeypairFile(keypair);
    const anchor = startBuilt(
      "anchor-service",
      appEnv({ ...shared, ANCHOR_PORT: String(anchorPort), AUTHORITY_KEYPAIR_PATH: keypair }),
    );
    const extensionUrl = `http://127.0.0.1:${extensionPort}`;
    await ready(extension, `${extensionUrl}/readyz`);
    const connect = await fetch(`${extensionUrl}/connect/app.js`);
    expect(connect.status).toBe(200);
    expect((await connect.text()).length).toBeGreaterThan(1_000);
    await ready(anchor, `http://127.0.0.1:${anchorPort}/readyz`);

    // Each stops cleanly on SIGTERM.
    for (const app of [anchor, extension, core, chain]) {
      await stopApp(app, 30_000);
      expect(await app.exited, `${app.name}\n${output.slice(-40).join("\n")}`).toBe(0);
    }
  }, 180_000);

  it("links a dependency only a library declares, rewrites import.meta.url, and rebuilds stale bundles", async () => {
    // A fixture tree: app/src/main.ts imports lib/src/read.ts, which imports the package `fixture-dep`
    // (installed for lib only) and reads lib/asset.txt relative to its own module.
    const root = join(outRoot, "fixture");
    const files: Record<string, string> = {
      "lib/node_modules/fixture-dep/package.json": JSON.stringify({
        name: "fixture-dep",
        type: "module",
        exports: "./index.js",
      }),
      "lib/node_modules/fixture-dep/index.js":
        'export const greeting = "hello from fixture-dep";\n',
      "lib/asset.txt": "asset beside lib/src",
      "lib/src/read.ts": [
        'import { readFileSync } from "node:fs";',
        'import { greeting } from "fixture-dep";',
        "export function describe(): string {",
        '  const asset = readFileSync(new URL("../asset.txt", import.meta.url), "utf8");',
        '  return greeting + "; " + asset;',
        "}",
        "",
      ].join("\n"),
      "app/src/main.ts":
        'import { describe } from "../../lib/src/read.js";\nconsole.log(describe());\n',
    };
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
    }
    const target: BuildTarget = {
      name: "fixture",
      entry: "app/src/main.ts",
      outfile: "app/dist/main.js",
    };
    const out = join(outRoot, "fixture-out");
    const options = { root, outRoot: out, targets: [target] };
    const run = () =>
      spawnSync(process.execPath, nodeArgs(bundlePath(target, out)), {
        cwd: tmpdir(),
        encoding: "utf8",
      });

    expect(bundleState(target, options)).toEqual({ current: false, reason: "not built" });
    expect((await ensureBuilt(options)).rebuilt.map((r) => r.target.name)).toEqual(["fixture"]);
    expect(run().stdout).toBe("hello from fixture-dep; asset beside lib/src\n");
    expect(bundleState(target, options)).toEqual({ current: true });
    expect((await ensureBuilt(options)).rebuilt).toEqual([]);

    await writeFile(
      join(root, "lib/src/read.ts"),
      files["lib/src/read.ts"]?.replace('"; "', '"! "') ?? "",
    );
    expect(bundleState(target, options)).toEqual({ current: false, reason: "sources changed" });
    const rebuilt = await ensureBuilt(options);
    expect(rebuilt.rebuilt).toEqual([{ target, reason: "sources changed" }]);
    expect(run().stdout).toBe("hello from fixture-dep! asset beside lib/src\n");

    await rm(join(root, "lib/src/read.ts"));
    expect(bundleState(target, options)).toEqual({
      current: false,
      reason: "a source file is gone",
    });
  });

  it("lists the same processes scripts/start.ts starts", () => {
    // start.ts names each supervised child's build target as a string literal: child("local-chain",
    // …), target: "postgres-host", or an ["core-api", port] pair.
    const start = readFileSync(join(REPO_ROOT, "scripts/start.ts"), "utf8");
    for (const target of BUILD_TARGETS) {
      expect(start, target.name).toMatch(new RegExp(`(child\\(|target: |\\[)"${target.name}"`));
    }
  });
});
