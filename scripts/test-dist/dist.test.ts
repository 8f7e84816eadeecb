/**
 * `pnpm test:dist`: the public packages as a user installs them. Every public package is built,
 * packed and npm-installed into a scratch folder outside the workspace (scripts/lib/dist-install.ts),
 * then run with plain `node` (no tsx) against a running service (testkit's startLocalService):
 * the SDK signs in with a keypair, remembers, recalls, waits for the anchor and verifies against
 * the chain; `svc --version`, `svc login/remember/recall/verify`; `svc-mcp` over stdio driven by
 * the MCP SDK's own Client; `svc-verify` on an exported bundle; and a TypeScript consumer with
 * `strict` and `exactOptionalPropertyTypes` type-checks against the shipped `.d.ts` under
 * `moduleResolution` `nodenext` and `bundler`. See docs/releasing.md.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { type LocalService, newSolanaKeypair, startLocalService } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogVersion, type DistInstall, installPackedPackages } from "../lib/dist-install.js";
import { WORKSPACE_ROOT } from "../lib/workspace.js";
import { CONSUMER_TS, consumerTsconfig, MCP_PROGRAM, SDK_PROGRAM } from "./consumer-files.js";

let install: DistInstall;
let service: LocalService;

beforeAll(async () => {
  install = await installPackedPackages({
    "@modelcontextprotocol/sdk": await catalogVersion("@modelcontextprotocol/sdk"),
    "@types/node": await catalogVersion("@types/node"),
    typescript: await catalogVersion("typescript"),
  });
  service = await startLocalService({
    root: WORKSPACE_ROOT,
    db: await createTestDatabase(),
    tempPrefix: "svc-local-service-",
  });
}, 600_000);

afterAll(async () => {
  await service?.close();
  if (install !== undefined) {
    await rm(install.dir, { recursive: true, force: true });
  }
});

/** How a child process ended and what it wrote. */
interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command args…` in the scratch folder with only PATH and `env` (asynchronously: the local
 * chain answers from this process).
 */
function run(command: string, args: readonly string[], env: Record<string, string> = {}) {
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: install.dir,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs a program file of the scratch folder with plain node; its one JSON line. */
async function runNode<T>(file: string, args: readonly string[]): Promise<T> {
  const result = await run(process.execPath, [file, ...args]);
  expect(result.status, `${file}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe("the packed packages, installed by npm outside the workspace", () => {
  it("hold built JavaScript, declarations and maps, and no TypeScript source", async () => {
    for (const name of install.tarballs.keys()) {
      const dir = join(install.dir, "node_modules", name);
      const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
        exports: Record<string, { types: string; default: string }>;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      expect(manifest.exports["."]?.default, name).toBe("./dist/index.js");
      const main = await readFile(join(dir, "dist", "index.js"), "utf8");
      expect(main, name).toContain("//# sourceMappingURL=index.js.map");
      await readFile(join(dir, "dist", "index.d.ts"), "utf8");
      // No dependency of any kind on a project that is not published (.pnpmfile.cjs drops the
      // devDependencies on private ones from the packed manifest).
      const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
      for (const dependency of Object.keys(dependencies)) {
        if (dependency.startsWith("@verifiable-memory/")) {
          expect([...install.tarballs.keys()], `${name} depends on ${dependency}`).toContain(
            dependency,
          );
        }
      }
    }
    // The auditor's path holds nothing native and no Solana library.
    const lock = await readFile(join(install.dir, "package-lock.json"), "utf8");
    expect(lock).not.toContain('"node_modules/litesvm"');
    expect(lock).not.toContain('"node_modules/@solana/web3.js"');
  });

  it("the SDK signs in, remembers, recalls and verifies an anchored memory on the chain", async () => {
    await writeFile(join(install.dir, "sdk.mjs"), SDK_PROGRAM);
    const key = newSolanaKeypair();
    const out = await runNode<{ publicKey: string; id: string; recalled: string[]; ok: boolean }>(
      "sdk.mjs",
      [service.apiUrl, service.chainUrl, Buffer.from(key.secretKey).toString("hex")],
    );
    expect(out.publicKey).toBe(key.address);
    expect(out.recalled).toContain(out.id);
    expect(out).toMatchObject({ ok: true });
  });

  it("svc: --version, login, remember, recall, verify, prove; svc-verify checks the bundle", async () => {
    const version = await run(install.bin("svc"), ["--version"]);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe("0.1.0");

    const home = join(install.dir, "home");
    const key = newSolanaKeypair();
    const keypairPath = join(home, "id.json");
    await mkdir(home, { recursive: true });
    await writeFile(keypairPath, JSON.stringify([...key.secretKey]));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), SVC_URL: service.apiUrl };
    const svc = async <T>(args: readonly string[]): Promise<T> => {
      const result = await run(install.bin("svc"), [...args, "--json"], env);
      expect(result.status, `svc ${args.join(" ")}: ${result.stderr}`).toBe(0);
      return JSON.parse(result.stdout) as T;
    };
    expect((await svc<{ publicKey: string }>(["login", "--keypair", keypairPath])).publicKey).toBe(
      key.address,
    );
    const { id } = await svc<{ id: string }>(["remember", "Parcels leave at noon."]);
    expect(
      (await svc<{ items: { id: string }[] }>(["recall", "parcels"])).items.map((m) => m.id),
    ).toEqual([id]);
    const deadline = Date.now() + 60_000;
    let verified = await run(
      install.bin("svc"),
      ["verify", id, "--rpc", service.chainUrl, "--json"],
      env,
    );
    while (
      verified.status === 1 &&
      verified.stdout.includes("not_anchored") &&
      Date.now() < deadline
    ) {
      await new Promise((done) => setTimeout(done, 250));
      verified = await run(
        install.bin("svc"),
        ["verify", id, "--rpc", service.chainUrl, "--json"],
        env,
      );
    }
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ verified: true });

    const bundle = await svc<{ anchored: boolean }>(["prove", id]);
    expect(bundle.anchored).toBe(true);
    await writeFile(join(install.dir, "bundle.json"), JSON.stringify(bundle));
    const audit = await run(install.bin("svc-verify"), [
      "--rpc",
      service.chainUrl,
      "--authority",
      service.authority,
      "bundle.json",
    ]);
    expect(audit.status, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/^VERIFIED\n/);
    const tampered = JSON.stringify(bundle).replace(
      /"leafIndex":(\d+)/,
      (_, n) => `"leafIndex":${Number(n) + 1}`,
    );
    await writeFile(join(install.dir, "tampered.json"), tampered);
    const refused = await run(install.bin("svc-verify"), [
      "--rpc",
      service.chainUrl,
      "tampered.json",
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/^NOT VERIFIED: /);
  });

  it("svc-mcp serves the memory tools over stdio to the MCP SDK's Client", async () => {
    await writeFile(join(install.dir, "sdk.mjs"), SDK_PROGRAM);
    const key = newSolanaKeypair();
    const { token } = await runNode<{ token: string }>("sdk.mjs", [
      service.apiUrl,
      service.chainUrl,
      Buffer.from(key.secretKey).toString("hex"),
    ]);
    await writeFile(join(install.dir, "mcp.mjs"), MCP_PROGRAM);
    const out = await runNode<{ server: string; tools: string[]; id: string; recalled: string[] }>(
      "mcp.mjs",
      [install.bin("svc-mcp"), service.apiUrl, token, service.chainUrl],
    );
    expect(out.server).toBe("svc-memory");
    expect(out.tools).toEqual(expect.arrayContaining(["recall", "remember", "verify"]));
    expect(out.recalled).toContain(out.id);
  });

  it.each(["nodenext", "bundler"] as const)(
    "type-checks a strict TypeScript consumer (exactOptionalPropertyTypes) under moduleResolution %s",
    async (resolution) => {
      await writeFile(join(install.dir, "consumer.ts"), CONSUMER_TS);
      const config = `tsconfig.${resolution}.json`;
      await writeFile(join(install.dir, config), consumerTsconfig(resolution));
      const tsc = join(install.dir, "node_modules", "typescript", "bin", "tsc");
      const result = await run(process.execPath, [tsc, "-p", config]);
      expect(result.stdout + result.stderr, `tsc -p ${config}`).toBe("");
      expect(result.status).toBe(0);
    },
  );

  it("is checked from outside the workspace", () => {
    expect(install.dir.startsWith(WORKSPACE_ROOT)).toBe(false);
  });
});
