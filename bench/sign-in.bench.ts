/**
 * Sign-in benchmark, over real HTTP against a real core-api (createApp, served by
 * @hono/node-server on 127.0.0.1, PostgreSQL underneath), with real ed25519 wallets (node:crypto):
 * - sign-in round trips/s: POST /auth/challenge + sign + POST /auth/verify, with 1 and 8 clients;
 * - the per-request cost of bearer resolution, JWT vs API key: GET /memories?limit=1 (the
 *   cheapest authenticated route: one indexed query for a user without memories), GET /healthz
 *   (the same middleware stack without a bearer), and resolveBearer called in-process.
 * Every figure stands beside an empty hono route served the same way (same @hono/node-server,
 * same fetch client) in the same run; cases are interleaved round by round so load from other
 * processes hits both sides alike, and rates are the median round.
 * Sizes: BENCH_SIGNIN_COUNT sign-ins per round (default 200), BENCH_SIGNIN_REQUESTS requests per
 * round (default 500). Database: DATABASE_URL's server when set, else an embedded PostgreSQL in a
 * temporary directory; a fresh database is created and dropped.
 *
 * The helpers that start a core-api and sign a wallet in are exported for memories.bench.ts.
 * @module
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { resolveBearer } from "@verifiable-memory/auth";
import { systemClock } from "@verifiable-memory/clock";
import { type AppDeps, type Config, createApp, loadConfig } from "@verifiable-memory/core-api";
import {
  createDatabase,
  type Database,
  type DatabaseHandle,
  migrateDatabase,
} from "@verifiable-memory/db-schema";
import type { VectorIndexer } from "@verifiable-memory/memory";
import { startEmbeddedPostgres } from "@verifiable-memory/runtime";
import bs58 from "bs58";
import { Hono } from "hono";
import { median, percentile, printFigures } from "./lib.js";

const SIGNINS = Number(process.env.BENCH_SIGNIN_COUNT ?? 200);
const REQUESTS = Number(process.env.BENCH_SIGNIN_REQUESTS ?? 500);
const ROUNDS = 3;
const CLIENTS = 8;

/** A fresh, migrated database on DATABASE_URL's server or on an embedded PostgreSQL. */
export interface BenchDatabase {
  /** URL of the fresh database. */
  readonly url: string;
  /** Drops the database, stops the embedded server if one was started, removes its directory. */
  close(): Promise<void>;
}

/** Creates and migrates `svc_bench_<label>_<random>`; see {@link BenchDatabase}. */
export async function benchDatabase(label: string): Promise<BenchDatabase> {
  let adminUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const dir = await mkdtemp(join(tmpdir(), `svc-bench-${label}-`));
    // The server runs as the unprivileged `postgres` user when we are root: it must reach the dir.
    await chmod(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: join(dir, "pg"), port: 0 });
    adminUrl = pg.url;
    stop = async () => {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const name = `svc_bench_${label}_${randomBytes(4).toString("hex")}`;
  const admin = createDatabase({ url: adminUrl, max: 1 });
  await admin.sql.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  return {
    url: url.toString(),
    close: async () => {
      await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.close();
      await stop();
    },
  };
}

/**
 * Environment of the bench apps: fresh random secrets for this run, rate limits off (a bench
 * measures the service at full speed from one address and one credential).
 */
export const BENCH_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
  JWT_SECRET: randomBytes(32).toString("hex"),
  MASTER_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  SIWS_DOMAIN: "localhost:8787",
  SIWS_URI: "http://localhost:8787",
  SIWS_CHAIN_ID: "devnet",
  SERVICE_NAME: "Verifiable Memory",
  PUBLIC_BASE_URL: "http://localhost:8787",
};

/** A pino-shaped logger that drops everything (the root package does not depend on pino). */
export const silentLogger = (() => {
  const logger = {
    level: "silent",
    child: () => logger,
    fatal: () => {},
    error: () => {},
    warn: () => {},
    info: () => {},
    debug: () => {},
    trace: () => {},
  };
  return logger as unknown as AppDeps["logger"];
})();

/** A running HTTP server. */
export interface Served {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `fetch` with @hono/node-server on 127.0.0.1, port 0 (as core-api's tests do). */
export async function serveFetch(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<Served> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The baseline server: a bare `new Hono()` with one empty route, `ALL /empty` → 204. */
export async function serveEmptyRoute(): Promise<Served> {
  const app = new Hono();
  app.all("/empty", (c) => c.body(null, 204));
  return serveFetch((request) => app.fetch(request));
}

/**
 * A fresh core-api app (its own recall cache) on `db`, served over HTTP; `vectors` gives it a
 * background embedder (semantic and hybrid ranks).
 */
export async function serveCoreApi(
  db: Database,
  config: Config,
  vectors?: VectorIndexer,
): Promise<Served> {
  return serveFetch(
    createApp({
      db,
      config,
      clock: systemClock,
      logger: silentLogger,
      ...(vectors === undefined ? {} : { vectors }),
    }).fetch,
  );
}

/** A wallet: a real ed25519 keypair (node:crypto), public key and signatures in base58. */
export interface Wallet {
  readonly publicKey: string;
  sign(message: string): string;
}

/** A fresh random wallet. */
export function newWallet(): Wallet {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  return {
    publicKey: bs58.encode(raw),
    sign: (message) => bs58.encode(sign(null, Buffer.from(message, "utf8"), privateKey)),
  };
}

/** POSTs JSON; returns the status and the parsed body. */
export async function postJson<T>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * Signs `wallet` in through POST /auth/challenge and POST /auth/verify.
 * @throws Error when either step does not answer 200.
 */
export async function signIn(
  url: string,
  wallet: Wallet,
): Promise<{ token: string; userId: string }> {
  const challenge = await postJson<{ message: string }>(`${url}/auth/challenge`, {
    publicKey: wallet.publicKey,
  });
  const verified = await postJson<{ token: string; userId: string }>(`${url}/auth/verify`, {
    publicKey: wallet.publicKey,
    message: challenge.body.message,
    signature: wallet.sign(challenge.body.message),
  });
  if (challenge.status !== 200 || verified.status !== 200) {
    throw new Error(`sign-in failed: ${challenge.status}, ${verified.status}`);
  }
  return verified.body;
}

/** Throughput and latencies of one timed batch. */
export interface Load {
  /** Operations per second over the whole batch. */
  readonly rate: number;
  /** Each operation's duration in ms. */
  readonly latencies: number[];
}

/** Runs `op` `count` times on `clients` concurrent workers (worker number passed to `op`). */
export async function drive(
  op: (client: number) => Promise<unknown>,
  count: number,
  clients: number,
): Promise<Load> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async (client: number) => {
    while (next < count) {
      next++;
      const t0 = performance.now();
      await op(client);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, i) => worker(i)));
  return { rate: count / ((performance.now() - t0) / 1000), latencies };
}

/**
 * Runs every case once per round, cases interleaved, after one untimed warm-up round.
 * @returns per case the median round rate and all latencies of the timed rounds.
 */
export async function interleave(
  cases: Record<string, () => Promise<Load>>,
  rounds: number,
): Promise<Record<string, Load>> {
  const timed = Object.fromEntries(
    Object.keys(cases).map((name) => [name, { rates: [] as number[], latencies: [] as number[] }]),
  );
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const load = await run();
      if (round >= 0) {
        timed[name]?.rates.push(load.rate);
        timed[name]?.latencies.push(...load.latencies);
      }
    }
  }
  return Object.fromEntries(
    Object.entries(timed).map(([name, t]) => [
      name,
      { rate: median(t.rates), latencies: t.latencies },
    ]),
  );
}

/** Drains a response (so the connection goes back to the pool) and checks its status. */
async function expectStatus(res: Promise<Response>, status: number): Promise<void> {
  const response = await res;
  await response.arrayBuffer();
  if (response.status !== status) {
    throw new Error(`${response.url}: expected ${status}, got ${response.status}`);
  }
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const database = await benchDatabase("signin");
  const handle: DatabaseHandle = createDatabase({ url: database.url, max: 16 });
  const config = loadConfig(BENCH_ENV);
  const api = await serveCoreApi(handle.db, config);
  const empty = await serveEmptyRoute();
  try {
    const wallets = Array.from({ length: CLIENTS }, newWallet);
    const session = await signIn(api.url, wallets[0] as Wallet);
    const auth = { authorization: `Bearer ${session.token}` };
    const minted = await postJson<{ key: string }>(`${api.url}/keys`, { label: "bench" }, auth);
    const apiKey = minted.body.key;

    // Sign-in: challenge, signature, verify; the baseline sends two POSTs of the same shapes.
    const sample = await postJson<{ message: string }>(`${api.url}/auth/challenge`, {
      publicKey: wallets[0]?.publicKey,
    });
    const signInOnce = (client: number) => signIn(api.url, wallets[client] as Wallet);
    const emptyPair = async (client: number) => {
      const wallet = wallets[client] as Wallet;
      await postJson(`${empty.url}/empty`, { publicKey: wallet.publicKey });
      await postJson(`${empty.url}/empty`, {
        publicKey: wallet.publicKey,
        message: sample.body.message,
        signature: wallet.sign(sample.body.message),
      });
    };
    const signIns = await interleave(
      {
        empty1: () => drive(emptyPair, SIGNINS, 1),
        signIn1: () => drive(signInOnce, SIGNINS, 1),
        emptyN: () => drive(emptyPair, SIGNINS * 2, CLIENTS),
        signInN: () => drive(signInOnce, SIGNINS * 2, CLIENTS),
      },
      ROUNDS,
    );

    // Bearer resolution: one sequential client; p50 per request.
    const get = (url: string, headers: Record<string, string> = {}) =>
      expectStatus(fetch(url, { headers }), 200);
    const getEmpty = () => expectStatus(fetch(`${empty.url}/empty`), 204);
    const memoriesUrl = `${api.url}/memories?limit=1`;
    const bearer = { authorization: `Bearer ${apiKey}` };
    const requests = await interleave(
      {
        empty: () => drive(getEmpty, REQUESTS, 1),
        healthz: () => drive(() => get(`${api.url}/healthz`), REQUESTS, 1),
        jwt: () => drive(() => get(memoriesUrl, auth), REQUESTS, 1),
        apiKey: () => drive(() => get(memoriesUrl, bearer), REQUESTS, 1),
      },
      ROUNDS,
    );
    const resolveDeps = { db: handle.db, secret: config.jwtSecret, clock: systemClock };
    const inProcess = await interleave(
      {
        empty: () => drive(getEmpty, REQUESTS, 1),
        jwt: () => drive(() => resolveBearer(resolveDeps, session.token), REQUESTS, 1),
        apiKey: () => drive(() => resolveBearer(resolveDeps, apiKey), REQUESTS, 1),
      },
      ROUNDS,
    );

    const rate = (load: Load | undefined) => load?.rate ?? Number.NaN;
    const p50 = (load: Load | undefined) => percentile(load?.latencies ?? [Number.NaN], 50);
    const emptyRoute = "empty hono route";
    printFigures("sign-in over HTTP (POST /auth/challenge + ed25519 sign + POST /auth/verify)", [
      {
        name: "sign-in round trips, 1 client",
        value: rate(signIns.signIn1),
        baseline: rate(signIns.empty1),
        unit: "round trips/s",
        baselineName: `${emptyRoute}, 2 POSTs`,
      },
      {
        name: `sign-in round trips, ${CLIENTS} clients`,
        value: rate(signIns.signInN),
        baseline: rate(signIns.emptyN),
        unit: "round trips/s",
        baselineName: `${emptyRoute}, 2 POSTs`,
      },
      {
        name: "sign-in round trip p50, 1 client",
        value: p50(signIns.signIn1),
        baseline: p50(signIns.empty1),
        unit: "ms",
        baselineName: `${emptyRoute}, 2 POSTs`,
      },
    ]);
    printFigures("bearer resolution, per request (1 client, p50)", [
      {
        name: "GET /healthz (app stack, no bearer)",
        value: p50(requests.healthz),
        baseline: p50(requests.empty),
        unit: "ms",
        baselineName: emptyRoute,
      },
      {
        name: "GET /memories?limit=1, JWT",
        value: p50(requests.jwt),
        baseline: p50(requests.empty),
        unit: "ms",
        baselineName: emptyRoute,
      },
      {
        name: "GET /memories?limit=1, API key",
        value: p50(requests.apiKey),
        baseline: p50(requests.empty),
        unit: "ms",
        baselineName: emptyRoute,
      },
      {
        name: "resolveBearer in-process, JWT",
        value: p50(inProcess.jwt),
        baseline: p50(inProcess.empty),
        unit: "ms",
        baselineName: emptyRoute,
      },
      {
        name: "resolveBearer in-process, API key",
        value: p50(inProcess.apiKey),
        baseline: p50(inProcess.empty),
        unit: "ms",
        baselineName: emptyRoute,
      },
    ]);
  } finally {
    await empty.close();
    await api.close();
    await handle.close();
    await database.close();
  }
}
