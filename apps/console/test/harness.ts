/**
 * The real service for the console's browser tests: a fresh PostgreSQL database, the local chain
 * (the real program in litesvm) with a funded anchoring authority, core-api and the anchor
 * service as child processes (their own `main.ts`, as `pnpm start` runs them), and between the
 * browser and the chain a proxy that can flip one byte of every commitment account it relays
 * (the console must then refuse the proof). Nothing here imports another app: the apps run as
 * processes.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { type LocalChain, requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import bs58 from "bs58";
import { CONSOLE_DIR, CONSOLE_DIST } from "../build/freshness.js";

ed.hashes.sha512 = sha512;

const ROOT = resolve(CONSOLE_DIR, "../..");
/** Offset of the root in the 121-byte commitment account (discriminator, authority, owner). */
const ROOT_OFFSET = 8 + 32 + 32;

/** A 64-byte Solana secret key (seed ‖ public key) and its address. */
export interface TestKey {
  readonly secret: Uint8Array;
  readonly address: string;
}

/** A fresh ed25519 key. */
export function newKey(): TestKey {
  const seed = ed.utils.randomSecretKey();
  const publicKey = ed.getPublicKey(seed);
  const secret = new Uint8Array(64);
  secret.set(seed);
  secret.set(publicKey, 32);
  return { secret, address: bs58.encode(publicKey) };
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** The chain proxy between the browser and the chain. */
export interface ChainProxy {
  readonly url: string;
  /** While true, every commitment account relayed has one byte of its root flipped. */
  flip: boolean;
  close(): Promise<void>;
}

/** Reads a request's body. */
function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks)));
    req.on("error", fail);
  });
}

/** Flips one root byte of a 121-byte account in a `getAccountInfo` answer. */
function flipAccount(text: string): string {
  const answer = JSON.parse(text) as {
    result?: { value: { data: [string, string] } | null };
  };
  const value = answer.result?.value;
  if (value === null || value === undefined) {
    return text;
  }
  const data = Buffer.from(value.data[0], "base64");
  if (data.length === 121) {
    data[ROOT_OFFSET] = (data[ROOT_OFFSET] ?? 0) ^ 0x01;
    value.data[0] = data.toString("base64");
  }
  return JSON.stringify(answer);
}

/** Starts the proxy in front of `chainUrl` (CORS answered as the chain answers it). */
export async function startChainProxy(chainUrl: string): Promise<ChainProxy> {
  const proxy: ChainProxy = { url: "", flip: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const upstream = await fetch(chainUrl, {
        method: req.method ?? "GET",
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            (entry): entry is [string, string] =>
              typeof entry[1] === "string" && !["host", "content-length"].includes(entry[0]),
          ),
        ),
        ...(body.length > 0 ? { body: body.toString("utf8") } : {}),
      });
      let text = await upstream.text();
      const method =
        body.length > 0 ? (JSON.parse(body.toString("utf8")) as { method?: string }).method : null;
      if (proxy.flip && method === "getAccountInfo") {
        text = flipAccount(text);
      }
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (
          !["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)
        ) {
          headers[name] = value;
        }
      });
      res.writeHead(upstream.status, headers).end(text);
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
  return proxy;
}

/** A child process of one app. */
interface AppProcess {
  readonly child: ChildProcess;
  readonly output: string[];
}

/** Starts `entry` (a TypeScript main) with tsx and `env`. */
function startApp(entry: string, env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, entry)], {
    cwd: ROOT,
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

/** Waits until `url` answers 200 (the process is ready), or throws with its output. */
async function waitReady(url: string, app: AppProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.child.exitCode !== null) {
      throw new Error(
        `${url}: the process exited (${app.child.exitCode}):\n${app.output.join("")}`,
      );
    }
    try {
      if ((await fetch(url)).status === 200) {
        return;
      }
    } catch {
      // Not listening yet.
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
export interface Service {
  /** core-api's base URL (the console is at `<apiUrl>/console/`). */
  readonly apiUrl: string;
  /** The chain's own URL (for the test's own reads and airdrops). */
  readonly chainUrl: string;
  /** The URL the console reads the chain from (the proxy). */
  readonly proxy: ChainProxy;
  readonly db: TestDatabase;
  /** Starts another core-api on the same database and chain, with `env` on top. */
  startAnotherApi(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }>;
  close(): Promise<void>;
}

/** Configuration every core-api of the service shares. */
function apiEnv(
  port: number,
  db: TestDatabase,
  chainUrl: string,
  authorityPath: string,
): Record<string, string> {
  const origin = `127.0.0.1:${port}`;
  return {
    DATABASE_URL: db.url,
    PORT: String(port),
    JWT_SECRET: "console-test-secret-that-is-long-enough-0123",
    MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
    SIWS_DOMAIN: origin,
    SIWS_URI: `http://${origin}`,
    SIWS_CHAIN_ID: "localnet",
    SERVICE_NAME: "Verifiable Memory",
    PUBLIC_BASE_URL: `http://${origin}`,
    CHAIN_RPC_URL: chainUrl,
    SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
    AUTHORITY_KEYPAIR_PATH: authorityPath,
    CONSOLE_DIR: CONSOLE_DIST,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
    LOG_LEVEL: "warn",
  };
}

/** Starts the whole service (see the module documentation). */
export async function startService(): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), "console-e2e-"));
  const db = await createTestDatabase();
  const chain: LocalChain = await startLocalChain({
    port: 0,
    dataDir: dir,
    programId: LOCAL_PROGRAM_ID,
  });
  const authority = newKey();
  await requestAirdrop(chain.url, authority.address, 10e9);
  const authorityPath = join(dir, "authority.json");
  await writeFile(authorityPath, JSON.stringify([...authority.secret]));
  const proxy = await startChainProxy(chain.url);
  const apps: AppProcess[] = [];

  const startApi = async (env: Record<string, string>) => {
    const port = await freePort();
    const app = startApp("apps/core-api/src/main.ts", {
      ...apiEnv(port, db, chain.url, authorityPath),
      CONSOLE_CHAIN_RPC_URL: proxy.url,
      ...env,
    });
    apps.push(app);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/readyz`, app);
    return { url, stop: () => stopApp(app) };
  };
  try {
    const api = await startApi({});
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
      apiUrl: api.url,
      chainUrl: chain.url,
      proxy,
      db,
      startAnotherApi: startApi,
      async close() {
        await Promise.all(apps.map(stopApp));
        await proxy.close();
        await chain.close();
        await db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(apps.map(stopApp));
    await proxy.close();
    await chain.close();
    await db.close();
    throw error;
  }
}
