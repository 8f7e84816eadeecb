/**
 * A running service for checks from outside the workspace (`pnpm test:dist`, `pnpm bench startup`):
 * on a fresh, migrated PostgreSQL database the caller gives, the local chain (the real program in litesvm) with a funded
 * anchoring authority, and core-api and the anchor service as child processes running their own
 * `main.ts` under tsx, as the console's browser tests start them (apps/console/test/harness.ts).
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
import { WORKSPACE_ROOT } from "./workspace.js";

/** A Solana CLI keypair: the 64-byte secret key (seed ‖ public key) and the base58 address. */
export interface SolanaKeypair {
  readonly secretKey: Uint8Array;
  readonly address: string;
}

/** A fresh ed25519 keypair in the Solana CLI layout (node:crypto, no Solana library). */
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

/** One app's child process and the tail of its output. */
interface AppProcess {
  readonly child: ChildProcess;
  readonly output: string[];
}

/** Starts `entry` (an app's TypeScript main, relative to the root) with tsx and `env`. */
function startApp(entry: string, env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(WORKSPACE_ROOT, entry)], {
    cwd: WORKSPACE_ROOT,
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

/** Waits until `url` answers 200, or throws with the process's output. */
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

/** A running service. */
export interface LocalService {
  /** core-api's base URL. */
  readonly apiUrl: string;
  /** The local chain's JSON-RPC URL. */
  readonly chainUrl: string;
  /** The anchoring authority's address (what a verifier pins). */
  readonly authority: string;
  readonly programId: string;
  close(): Promise<void>;
}

/** A fresh, migrated database and how to drop it (db-schema's createTestDatabase, benchDatabase). */
export interface ServiceDatabase {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the service (see the module documentation) on `db`, which {@link LocalService.close}
 * closes. The anchor service sweeps every 500 ms.
 * @throws Error with the failing process's output when an app does not become ready.
 */
export async function startLocalService(db: ServiceDatabase): Promise<LocalService> {
  const dir = await mkdtemp(join(tmpdir(), "svc-local-service-"));
  const chain = await startLocalChain({ port: 0, dataDir: dir, programId: LOCAL_PROGRAM_ID });
  const authority = newSolanaKeypair();
  await requestAirdrop(chain.url, authority.address, 10e9);
  const authorityPath = join(dir, "authority.json");
  await writeFile(authorityPath, JSON.stringify([...authority.secretKey]));
  const apps: AppProcess[] = [];
  const close = async () => {
    await Promise.all(apps.map(stopApp));
    await chain.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const port = await freePort();
    const origin = `127.0.0.1:${port}`;
    const api = startApp("apps/core-api/src/main.ts", {
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
    });
    apps.push(api);
    await waitReady(`http://${origin}/readyz`, api);
    const anchorPort = await freePort();
    const anchor = startApp("apps/anchor-service/src/main.ts", {
      DATABASE_URL: db.url,
      CHAIN_RPC_URL: chain.url,
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
      AUTHORITY_KEYPAIR_PATH: authorityPath,
      ANCHOR_PORT: String(anchorPort),
      ANCHOR_INTERVAL_MS: "500",
      SEAL_MAX_PENDING: "1",
      SEAL_MAX_AGE_MS: "1",
      LOG_LEVEL: "warn",
    });
    apps.push(anchor);
    await waitReady(`http://127.0.0.1:${anchorPort}/readyz`, anchor);
    return {
      apiUrl: `http://${origin}`,
      chainUrl: chain.url,
      authority: authority.address,
      programId: LOCAL_PROGRAM_ID,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
