/**
 * The whole service as processes, for tests and checks that run it from outside (the console's
 * browser tests, `pnpm test:dist`, `pnpm bench svc-startup`): on a fresh, migrated PostgreSQL
 * database the caller gives, the local chain (`@verifiable-memory/litesvm-rpc`, the real program
 * in litesvm) in process with a funded anchoring authority, and core-api and the anchor service
 * as child processes running their own `main.ts` under tsx, as `pnpm start` runs them. The apps
 * are started by path, never imported.
 * Source: this project's design (docs/architecture.md "Where each job lives").
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import bs58 from "bs58";

/** The apps' entry points, relative to the workspace root. */
const CORE_API_MAIN = "apps/core-api/src/main.ts";
const ANCHOR_SERVICE_MAIN = "apps/anchor-service/src/main.ts";

/** A Solana CLI keypair: the 64-byte secret key (seed ‖ public key) and the base58 address. */
export interface SolanaKeypair {
  readonly secretKey: Uint8Array;
  readonly address: string;
}

/**
 * A fresh random ed25519 keypair in the Solana CLI layout (node:crypto, no Solana library).
 * Source: RFC 8032 (Ed25519); the Solana CLI keypair file holds seed ‖ public key.
 */
export function newSolanaKeypair(): SolanaKeypair {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d as string, "base64url");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  return { secretKey: new Uint8Array([...seed, ...pub]), address: bs58.encode(pub) };
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** One app's child process and the tail of its output (the last 200 chunks). */
interface AppProcess {
  readonly child: ChildProcess;
  readonly output: string[];
}

/** Starts `entry` (an app's TypeScript main, relative to `root`) with tsx and only `env` and PATH. */
function startApp(root: string, entry: string, env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, entry)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString("utf8"));
    if (output.length > 200) {
      output.shift();
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output };
}

/** Waits until `url` answers 200 (polled every 200 ms), or throws with the process's output. */
async function waitReady(url: string, app: AppProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.child.exitCode !== null) {
      throw new Error(
        `${url}: the process exited (${app.child.exitCode}):\n${app.output.join("")}`,
      );
    }
    const ok = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) {
      return;
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${app.output.join("")}`);
}

/** Stops a child process (SIGTERM, then SIGKILL after 10 s). */
async function stopApp(app: AppProcess): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((done) => app.child.once("exit", () => done()));
  app.child.kill("SIGTERM");
  const timer = setTimeout(() => app.child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A fresh, migrated database and how to drop it (db-schema's createTestDatabase, benchDatabase). */
export interface ServiceDatabase {
  readonly url: string;
  close(): Promise<void>;
}

/** Something the caller runs between the chain and core-api (the console's chain proxy). */
export interface ServiceFront {
  /** Settings added to core-api's (they win over the defaults). */
  readonly apiEnv: Record<string, string>;
  /** Stops it; called after the apps stop and before the chain closes. */
  close(): Promise<void>;
}

/** How to start the service; `F` is what {@link LocalServiceOptions.front} starts. */
export interface LocalServiceOptions<F extends ServiceFront | undefined> {
  /** The workspace root: the apps run as `<root>/apps/<app>/src/main.ts`. */
  readonly root: string;
  /** The database; {@link LocalService.close} closes it. */
  readonly db: ServiceDatabase;
  /** Prefix of the temporary folder holding the chain's state and the authority keypair. */
  readonly tempPrefix: string;
  /** Started once the chain runs (given its JSON-RPC URL), before core-api. */
  readonly front?: (chainUrl: string) => Promise<F>;
}

/** A running service. */
export interface LocalService<F extends ServiceFront | undefined = undefined> {
  /** core-api's base URL (`http://127.0.0.1:<port>`). */
  readonly apiUrl: string;
  /** The local chain's JSON-RPC URL. */
  readonly chainUrl: string;
  /** The anchoring authority's address (what a verifier pins); funded with 10 SOL. */
  readonly authority: string;
  /** The commitment program's id on the local chain. */
  readonly programId: string;
  /** What the options' `front` started (undefined without one). */
  readonly front: F;
  /** Stops the apps, the front, the chain and the database, and removes the temporary folder. */
  close(): Promise<void>;
}

/**
 * Starts the service (see the module documentation): core-api with rate limits off and
 * LOG_LEVEL warn, then the anchor service sweeping every 500 ms and sealing every leaf at once
 * (SEAL_MAX_PENDING 1, SEAL_MAX_AGE_MS 1). Everything started is stopped again when a step fails.
 * Source: the apps' settings in README.md "Configuration".
 * @throws Error with the failing process's output when an app exits or is not ready (its
 *   `/readyz` answering 200) within 120 s.
 */
export async function startLocalService<F extends ServiceFront | undefined = undefined>(
  options: LocalServiceOptions<F>,
): Promise<LocalService<F>> {
  const { root, db } = options;
  const dir = await mkdtemp(join(tmpdir(), options.tempPrefix));
  const chain = await startLocalChain({ port: 0, dataDir: dir, programId: LOCAL_PROGRAM_ID });
  const apps: AppProcess[] = [];
  let front: F | undefined;
  const close = async () => {
    await Promise.all(apps.map(stopApp));
    await front?.close();
    await chain.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const authority = newSolanaKeypair();
    await requestAirdrop(chain.url, authority.address, 10e9);
    const authorityPath = join(dir, "authority.json");
    await writeFile(authorityPath, JSON.stringify([...authority.secretKey]));
    front = await options.front?.(chain.url);
    const port = await freePort();
    const origin = `127.0.0.1:${port}`;
    const api = startApp(root, CORE_API_MAIN, {
      DATABASE_URL: db.url,
      PORT: String(port),
      JWT_SECRET: "local-service-secret-that-is-long-enough-0123",
      MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
      SIWS_DOMAIN: origin,
      SIWS_URI: `http://${origin}`,
      SIWS_CHAIN_ID: "localnet",
      SERVICE_NAME: "Verifiable Memory",
      PUBLIC_BASE_URL: `http://${origin}`,
      CHAIN_RPC_URL: chain.url,
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
      AUTHORITY_KEYPAIR_PATH: authorityPath,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
      LOG_LEVEL: "warn",
      ...front?.apiEnv,
    });
    apps.push(api);
    await waitReady(`http://${origin}/readyz`, api);
    const anchorPort = await freePort();
    const anchor = startApp(root, ANCHOR_SERVICE_MAIN, {
      DATABASE_URL: db.url,
      CHAIN_RPC_URL: chain.url,
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
      AUTHORITY_KEYPAIR_PATH: authorityPath,
      ANCHOR_PORT: String(anchorPort),
      ANCHOR_INTERVAL_MS: "500",
      SEAL_MAX_PENDING: "1",
      SEAL_MAX_AGE_MS: "1",
      // No log key here, so no checkpoint log: every sealed user is committed each sweep.
      USER_ANCHOR_INTERVAL_MS: "0",
      LOG_LEVEL: "warn",
    });
    apps.push(anchor);
    await waitReady(`http://127.0.0.1:${anchorPort}/readyz`, anchor);
    return {
      apiUrl: `http://${origin}`,
      chainUrl: chain.url,
      authority: authority.address,
      programId: LOCAL_PROGRAM_ID,
      front: front as F,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
