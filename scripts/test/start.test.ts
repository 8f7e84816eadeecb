/**
 * `pnpm start` survives a restart. The real `scripts/start.ts` runs twice on one
 * temporary settings file and DATA_DIR (embedded PostgreSQL and local chain, never the machine's
 * DATABASE_URL or a CHAIN_RPC_URL): start, sign in with a real ed25519 wallet, write, wait until
 * anchored, write once more, SIGTERM (exit 0, everything stopped), start again, read every memory
 * back, check that the log only grew (RFC 9162 consistency proof) and that every proof verifies
 * with `@verifiable-memory/verifier` against the chain, write after the restart and see it anchored, SIGTERM.
 * Nothing is written to the repository: `ENV_FILE` points `start.ts` at the temporary directory.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PublicKey } from "@solana/web3.js";
import {
  decodeCheckpointLog,
  findCheckpointLogAddress,
} from "@verifiable-memory/commitment-program";
import { decodeEntryBundle, fromHex, verifyConsistency } from "@verifiable-memory/merkle-log";
import { openCheckpoint, parseSignerKey } from "@verifiable-memory/signed-note";
import { verifyBundle } from "@verifiable-memory/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSolanaKeypairFile } from "../lib/first-run.js";
import { loadWallet } from "../lib/wallet.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Configuration the launcher must not inherit from the machine running the tests. */
const INHERITED_CONFIG = [
  "DATABASE_URL",
  "CHAIN_RPC_URL",
  "DATA_DIR",
  "JWT_SECRET",
  "MASTER_ENCRYPTION_KEY",
  "SIWS_DOMAIN",
  "SIWS_URI",
  "SIWS_CHAIN_ID",
  "SERVICE_NAME",
  "PUBLIC_BASE_URL",
  "CORS_ORIGINS",
  "EXTENSION_ALLOWED_ORIGINS",
  "EXTENSION_PUBLIC_URL",
  "EXTENSION_TOKEN_TTL_S",
  "SERVICE_PROGRAM_ID",
  "AUTHORITY_KEYPAIR_PATH",
  "LOG_ORIGIN",
  "LOG_SIGNING_KEY_PATH",
  "LOG_SIGNING_KEYS_PREVIOUS",
  "SEAL_MAX_PENDING",
  "NODE_OPTIONS",
];

/** A running `scripts/start.ts`. */
interface Launcher {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface Ports {
  readonly core: number;
  readonly anchor: number;
  readonly extension: number;
  readonly chain: number;
}

interface Log {
  treeSize: number;
  rootHash: string;
  anchored: { treeSize: number; rootHash: string; nonce: number; signature: string } | null;
}

interface Written {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  leafIndex: number;
  leafHash: string;
}

let work: string;
let ports: Ports;
const launchers: Launcher[] = [];
const rootHadEnv = existsSync(join(root, ".env"));
const rootHadData = existsSync(join(root, ".data"));

/** Asks the kernel for a free TCP port on 127.0.0.1 (0 when `port` is taken). */
function listenOn(port: number): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(0));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Distinct free ports; the chain's port is followed by a free one (its WebSocket). */
async function freePorts(): Promise<Ports> {
  const taken = new Set<number>();
  const one = async (): Promise<number> => {
    for (;;) {
      const port = await listenOn(0);
      if (port !== 0 && !taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  let chain = 0;
  while (chain === 0) {
    const candidate = await one();
    if (candidate < 65_535 && !taken.has(candidate + 1) && (await listenOn(candidate + 1)) !== 0) {
      taken.add(candidate + 1);
      chain = candidate;
    }
  }
  return { chain, core: await one(), anchor: await one(), extension: await one() };
}

/** The launcher's environment: the machine's, minus its service configuration, plus ours. */
function launcherEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_CONFIG) {
    delete env[name];
  }
  return {
    ...env,
    ENV_FILE: join(work, ".env"),
    PORT: String(ports.core),
    ANCHOR_PORT: String(ports.anchor),
    EXTENSION_PORT: String(ports.extension),
    LOCAL_CHAIN_PORT: String(ports.chain),
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.core}`,
    ANCHOR_INTERVAL_MS: "500",
    SEAL_MAX_AGE_MS: "500",
  };
}

/**
 * Runs `node --import tsx scripts/start.ts` (or, `viaPnpm`, the README's `pnpm start`) in its own
 * process group.
 */
function launch(viaPnpm = false): Launcher {
  const [command, args] = viaPnpm
    ? ["pnpm", ["start"]]
    : [process.execPath, ["--import", "tsx", "scripts/start.ts"]];
  const child = spawn(command, args, {
    cwd: root,
    env: launcherEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      output.push(...lines);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once("exit", (code, signal) => done({ code, signal }));
  });
  const launcher = { child, output, exited };
  launchers.push(launcher);
  return launcher;
}

function tail(launcher: Launcher, lines = 60): string {
  return launcher.output.slice(-lines).join("\n");
}

function running(launcher: Launcher): boolean {
  return launcher.child.exitCode === null && launcher.child.signalCode === null;
}

/** Waits for the launcher's "ready" line, then checks both health endpoints. */
async function waitReady(launcher: Launcher, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!launcher.output.some((line) => line.includes("[start] Ctrl-C stops everything"))) {
    if (!running(launcher)) {
      throw new Error(`start.ts exited before it was ready:\n${tail(launcher)}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`start.ts not ready within ${timeoutMs} ms:\n${tail(launcher)}`);
    }
    await sleep(250);
  }
  expect((await fetch(`http://127.0.0.1:${ports.core}/healthz`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ports.extension}/readyz`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ports.anchor}/healthz`)).status).toBe(200);
}

/** SIGTERM; resolves with how the launcher exited (SIGKILL to its group after `graceMs`). */
async function terminate(launcher: Launcher, graceMs = 60_000) {
  if (!running(launcher)) {
    return launcher.exited;
  }
  launcher.child.kill("SIGTERM");
  const timer = setTimeout(() => killGroup(launcher), graceMs);
  const outcome = await launcher.exited;
  clearTimeout(timer);
  return outcome;
}

/** SIGKILL to the launcher's whole process group (apps, chain and PostgreSQL included). */
function killGroup(launcher: Launcher): void {
  const pid = launcher.child.pid;
  if (pid === undefined) {
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Calls the core API; throws with the body unless the status is `expected`. */
async function api<T>(
  path: string,
  init: { method?: string; bearer?: string; body?: unknown; expected?: number } = {},
): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${ports.core}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  if (res.status !== (init.expected ?? 200)) {
    throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${text}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

async function write(bearer: string, content: string, metadata: Record<string, unknown>) {
  const created = await api<{ id: string; leafIndex: number; leafHash: string }>("/memories", {
    bearer,
    body: { content, metadata },
    expected: 201,
  });
  return {
    id: created.id,
    content,
    metadata,
    leafIndex: created.leafIndex,
    leafHash: created.leafHash,
  };
}

/** Polls GET /log until the anchored checkpoint covers `size` leaves. */
async function waitAnchored(
  launcher: Launcher,
  bearer: string,
  size: number,
  timeoutMs = 90_000,
): Promise<Log> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await api<Log>("/log", { bearer });
    if (log.treeSize === size && log.anchored?.treeSize === size) {
      return log;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `not anchored within ${timeoutMs} ms: ${JSON.stringify(log)}\n${tail(launcher)}`,
      );
    }
    await sleep(250);
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "svc-start-test-"));
  // The embedded PostgreSQL runs as the unprivileged `postgres` user when we are root.
  await chmod(work, 0o755);
  ports = await freePorts();
});

afterAll(async () => {
  for (const launcher of launchers) {
    if (running(launcher)) {
      await terminate(launcher, 30_000);
    }
    killGroup(launcher);
  }
  if (work) {
    await rm(work, { recursive: true, force: true });
  }
}, 120_000);

describe("pnpm start (scripts/start.ts)", () => {
  it("resumes after SIGTERM: no acknowledged write is lost and every proof verifies against the chain", async () => {
    // ── First run: writes the settings file and the authority keypair, and says so.
    const first = launch();
    await waitReady(first);
    expect(first.output.some((l) => l.includes(`wrote ${join(work, ".env")}`))).toBe(true);
    expect(first.output.some((l) => l.includes("wrote a local authority keypair"))).toBe(true);
    const authorityPath = join(work, ".data", "authority.json");
    expect(existsSync(authorityPath)).toBe(true);
    const written0 = await readFile(join(work, ".env"), "utf8");
    expect(written0).toContain(`SIWS_DOMAIN=localhost:${ports.core}\n`);
    expect(written0).toContain(`EXTENSION_PUBLIC_URL=http://localhost:${ports.extension}\n`);
    // The log key: LOG_ORIGIN pinned, the key written under DATA_DIR and shown by GET /info.
    expect(written0).toContain(`LOG_ORIGIN=127.0.0.1:${ports.core}/tlog\n`);
    const logKey = parseSignerKey(
      (await readFile(join(work, ".data", "log-signing.key"), "utf8")).trim(),
    );
    expect(first.output.some((l) => l.includes(`verifier key ${logKey.vkey}`))).toBe(true);
    expect((await api<{ logKey: string }>("/info")).logKey).toBe(logKey.vkey);
    expect(existsSync(join(work, ".data", "postgres", "PG_VERSION"))).toBe(true);
    const authority = loadWallet(authorityPath).publicKey;

    // A wallet that is a Solana CLI keypair file, signing in with SIWS.
    const walletPath = join(work, "wallet.json");
    await writeSolanaKeypairFile(walletPath);
    const wallet = loadWallet(walletPath);
    const challenge = await api<{ message: string; nonce: string }>("/auth/challenge", {
      body: { publicKey: wallet.publicKey },
    });
    const session = await api<{ token: string; userId: string; publicKey: string }>(
      "/auth/verify",
      {
        body: {
          publicKey: wallet.publicKey,
          message: challenge.message,
          signature: wallet.sign(challenge.message),
        },
      },
    );
    expect(session.publicKey).toBe(wallet.publicKey);
    const { key } = await api<{ key: string }>("/keys", {
      bearer: session.token,
      body: { label: "restart test" },
      expected: 201,
    });

    const written: Written[] = [];
    for (const [i, content] of [
      "The first memory, written before any restart.",
      "Zweite Erinnerung: Grüße aus dem Speicher ✓",
      "A third one, with nested metadata.",
    ].entries()) {
      written.push(await write(key, content, { i, phase: "before", tags: ["restart"] }));
    }
    expect(written.map((m) => m.leafIndex)).toEqual([0, 1, 2]);
    const anchoredBefore = await waitAnchored(first, key, 3);
    const oldRoot = anchoredBefore.rootHash;
    expect(anchoredBefore.anchored?.rootHash).toBe(oldRoot);

    // Acknowledged just before the SIGTERM, not yet anchored: it must survive the restart.
    written.push(await write(key, "Acknowledged right before SIGTERM.", { phase: "last" }));

    // ── SIGTERM: a clean exit, every process stopped.
    const stopped = await terminate(first);
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(first.output).toContain("[start] stopped");
    expect(existsSync(join(work, ".data", "postgres", "postmaster.pid"))).toBe(false);
    for (const port of [ports.core, ports.extension, ports.anchor, ports.chain]) {
      expect(await listenOn(port)).toBe(port);
    }

    // ── Second run on the same settings and DATA_DIR: nothing new is written.
    const second = launch();
    await waitReady(second);
    expect(second.output.some((l) => l.includes("wrote "))).toBe(false);

    // The session token survives too: JWT_SECRET was kept in the settings file.
    const list = await api<{ items: { id: string }[]; nextCursor: string | null }>("/memories", {
      bearer: session.token,
    });
    expect(list.items.map((m) => m.id)).toEqual(written.map((m) => m.id).reverse());
    for (const memory of written) {
      const read = await api<Written & { createdAt: string }>(`/memories/${memory.id}`, {
        bearer: key,
      });
      expect(read).toMatchObject({
        id: memory.id,
        content: memory.content,
        metadata: memory.metadata,
        leafIndex: memory.leafIndex,
        leafHash: memory.leafHash,
      });
    }

    // The memory written before the SIGTERM is anchored after the restart, and so is a new one.
    await waitAnchored(second, key, 4);
    written.push(await write(key, "Written after the restart.", { phase: "after" }));
    expect(written.at(-1)?.leafIndex).toBe(4);
    const anchoredAfter = await waitAnchored(second, key, 5);

    // The log only grew: the root anchored before the restart is a prefix of today's.
    const consistency = await api<{ fromRoot: string; toRoot: string; proof: string[] }>(
      "/log/consistency?from=3&to=5",
      { bearer: key },
    );
    expect(consistency.fromRoot).toBe(oldRoot);
    expect(consistency.toRoot).toBe(anchoredAfter.rootHash);
    expect(() =>
      verifyConsistency(
        3,
        5,
        consistency.proof.map((node) => fromHex(node)),
        fromHex(oldRoot),
        fromHex(anchoredAfter.rootHash),
      ),
    ).not.toThrow();

    // Every proof verifies against the chain, read by the verifier itself (not through the API).
    const rpcUrl = `http://127.0.0.1:${ports.chain}`;
    for (const memory of written) {
      const bundle = await api<{ anchored: boolean }>(`/memories/${memory.id}/proof`, {
        bearer: key,
      });
      expect(bundle.anchored).toBe(true);
      const result = await verifyBundle(bundle, { rpcUrl, content: memory.content, authority });
      expect(result, result.message).toMatchObject({
        verified: true,
        reason: null,
        contentChecked: true,
      });
      expect(result.onChain?.root).toBe(anchoredAfter.rootHash);
      const served = await api<{ verified: boolean }>(`/memories/${memory.id}/verify`, {
        bearer: key,
      });
      expect(served.verified).toBe(true);
    }

    // The checkpoint log holds the user's anchored checkpoints, signed by the log key, and its
    // latest user checkpoint is the one on chain (docs/protocol.md §13.3, §13.5).
    const userNote = await (
      await fetch(`http://127.0.0.1:${ports.core}/owners/${wallet.publicKey}/checkpoint`)
    ).text();
    const user = openCheckpoint(userNote, [logKey], `${logKey.name}/users/${wallet.publicKey}`);
    expect(Buffer.from(user.checkpoint.rootHash).toString("hex")).toBe(anchoredAfter.rootHash);
    const deadline = Date.now() + 20_000;
    let logged = "";
    // The leader appends after its next sweep: poll the log's checkpoint until it covers us.
    while (!logged.includes(user.text) && Date.now() < deadline) {
      const head = await fetch(`http://127.0.0.1:${ports.core}/tlog/checkpoint`);
      if (head.status !== 200) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const size = openCheckpoint(await head.text(), [logKey], logKey.name).checkpoint.size;
      const bundle = await fetch(
        `http://127.0.0.1:${ports.core}/tlog/tile/entries/000${size < 256 ? `.p/${size}` : ""}`,
      );
      logged = decodeEntryBundle(new Uint8Array(await bundle.arrayBuffer()))
        .map((e) => new TextDecoder().decode(e))
        .join("");
      if (!logged.includes(user.text)) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(logged).toContain(user.text);

    // The checkpoint log's root and size are anchored in its account (docs/protocol.md §13.5):
    // read straight from the chain, the account matches the signed head at its size.
    const { programId } = await api<{ programId: string }>("/info");
    const [logAccount] = findCheckpointLogAddress(
      new PublicKey(authority),
      new PublicKey(programId),
    );
    let onChain: ReturnType<typeof decodeCheckpointLog> | null = null;
    let signedHead = openCheckpoint(
      await (await fetch(`http://127.0.0.1:${ports.core}/tlog/checkpoint`)).text(),
      [logKey],
      logKey.name,
    ).checkpoint;
    const anchorDeadline = Date.now() + 20_000;
    while (Date.now() < anchorDeadline) {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "getAccountInfo",
          params: [logAccount.toBase58(), { encoding: "base64", commitment: "confirmed" }],
        }),
      });
      const info = ((await res.json()) as { result?: { value: { data: [string] } | null } }).result
        ?.value;
      onChain = info ? decodeCheckpointLog(Buffer.from(info.data[0], "base64")) : null;
      if (onChain && onChain.size === BigInt(signedHead.size)) {
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
      signedHead = openCheckpoint(
        await (await fetch(`http://127.0.0.1:${ports.core}/tlog/checkpoint`)).text(),
        [logKey],
        logKey.name,
      ).checkpoint;
    }
    expect(onChain?.size).toBe(BigInt(signedHead.size));
    expect(Buffer.from(onChain?.root ?? []).toString("hex")).toBe(
      Buffer.from(signedHead.rootHash).toString("hex"),
    );
    expect(onChain?.authority.toBase58()).toBe(authority);

    // ── Second SIGTERM: clean again.
    expect(await terminate(second)).toEqual({ code: 0, signal: null });
    expect(second.output).toContain("[start] stopped");

    // Nothing was written into the repository.
    expect(existsSync(join(root, ".env"))).toBe(rootHadEnv);
    expect(existsSync(join(root, ".data"))).toBe(rootHadData);
  }, 300_000);

  it("stops on a terminal's Ctrl-C (SIGINT to the whole group) with exit 0 and no pnpm error", async () => {
    const launcher = launch(true);
    await waitReady(launcher);
    process.kill(-(launcher.child.pid as number), "SIGINT");
    const timer = setTimeout(() => killGroup(launcher), 60_000);
    const outcome = await launcher.exited;
    clearTimeout(timer);
    expect(outcome, tail(launcher)).toEqual({ code: 0, signal: null });
    expect(launcher.output).toContain("[start] stopped");
    expect(launcher.output.join("\n")).not.toMatch(/ELIFECYCLE|Command failed/);
    for (const port of [ports.core, ports.extension, ports.anchor, ports.chain]) {
      expect(await listenOn(port)).toBe(port);
    }
  });

  it("stops the whole service with a clear message when the embedded PostgreSQL dies", async () => {
    const launcher = launch();
    await waitReady(launcher);
    const pidFile = join(work, ".data", "postgres", "postmaster.pid");
    const postmaster = Number((await readFile(pidFile, "utf8")).split("\n")[0]);
    process.kill(postmaster, "SIGKILL");
    const timer = setTimeout(() => killGroup(launcher), 60_000);
    const outcome = await launcher.exited;
    clearTimeout(timer);
    expect(outcome, tail(launcher)).toEqual({ code: 1, signal: null });
    const output = launcher.output.join("\n");
    expect(output).toMatch(/embedded PostgreSQL in .* exited unexpectedly \(SIGKILL\)/);
    expect(output).toContain("[start] postgres exited unexpectedly");
    for (const port of [ports.core, ports.extension, ports.anchor, ports.chain]) {
      expect(await listenOn(port)).toBe(port);
    }
  });
});
