/**
 * `pnpm start` survives a restart. The real `scripts/start.ts` runs twice on one
 * temporary settings file and DATA_DIR (embedded PostgreSQL and local chain, never the machine's
 * DATABASE_URL or a CHAIN_RPC_URL): start, sign in with a real ed25519 wallet, write, wait until
 * anchored, write once more, SIGTERM (exit 0, everything stopped), start again, read every memory
 * back, check that the log only grew (RFC 9162 consistency proof) and that every proof verifies
 * with `@verifiable-memory/verifier` against the chain, write after the restart and see it anchored, SIGTERM.
 * Ctrl-C stops it cleanly; a SIGKILL of the embedded PostgreSQL restarts PostgreSQL alone (same
 * port) while the apps stay up and reconnect (`/readyz` 503, then 200). Helpers: start-harness.ts.
 * Nothing is written to the repository: `ENV_FILE` points `start.ts` at the temporary directory.
 * @module
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
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
import {
  api,
  cleanUpLaunchers,
  killGroup,
  type Launcher,
  launch,
  listenOn,
  pidOf,
  ports,
  postmaster,
  prepareLaunchers,
  root,
  signIn,
  sleep,
  tail,
  terminate,
  waitFor,
  waitReady,
  work,
} from "./start-harness.js";

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

const rootHadEnv = existsSync(join(root, ".env"));
const rootHadData = existsSync(join(root, ".data"));

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

beforeAll(prepareLaunchers);

afterAll(cleanUpLaunchers, 120_000);

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

  it("restarts PostgreSQL and the apps reconnect: /readyz 503 then 200, no app restarted", async () => {
    const launcher = launch();
    await waitReady(launcher);
    const { key } = await signIn();
    const before = await write(key, "Written before PostgreSQL is killed.", { phase: "before" });
    const apps = ["core-api", "extension-api", "anchor-service"];
    const pids = apps.map((app) => pidOf(launcher, app));
    const killed = await postmaster();

    // Readiness of both APIs, polled from before the kill until both are ready again.
    const seen: Record<string, number[]> = { core: [], extension: [] };
    let polling = true;
    const poll = (async () => {
      while (polling) {
        for (const [name, port] of [
          ["core", ports.core],
          ["extension", ports.extension],
        ] as const) {
          const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (res) => res.status,
            () => 0,
          );
          if (seen[name]?.at(-1) !== status) {
            seen[name]?.push(status);
          }
        }
        await sleep(20);
      }
    })();
    await waitFor(
      launcher,
      "both APIs polled ready",
      () => seen.core?.[0] === 200 && seen.extension?.[0] === 200,
    );
    process.kill(killed.pid, "SIGKILL");
    await waitFor(launcher, "postgres restarted", () =>
      launcher.output.includes("[start] postgres restarted"),
    );
    await waitFor(
      launcher,
      "both APIs ready again",
      () => seen.core?.at(-1) === 200 && seen.extension?.at(-1) === 200,
    );
    polling = false;
    await poll;
    expect(seen.core).toEqual([200, 503, 200]);
    expect(seen.extension).toEqual([200, 503, 200]);

    const output = launcher.output.join("\n");
    expect(output).toMatch(/embedded PostgreSQL in .* exited unexpectedly \(SIGKILL\)/);
    expect(output).toContain(
      "[start] postgres exited unexpectedly (exit code 1); restart 1 in 250 ms",
    );
    // Same data directory and port, a new server; the apps were not restarted.
    const restarted = await postmaster();
    expect(restarted.port).toBe(killed.port);
    expect(restarted.pid).not.toBe(killed.pid);
    expect(apps.map((app) => pidOf(launcher, app))).toEqual(pids);
    for (const app of apps) {
      expect(output).not.toContain(`[start] ${app} exited`);
    }
    const after = await write(key, "Written after PostgreSQL came back.", { phase: "after" });
    for (const memory of [before, after]) {
      expect(
        await api<{ content: string }>(`/memories/${memory.id}`, { bearer: key }),
      ).toMatchObject({ content: memory.content });
    }

    expect(await terminate(launcher)).toEqual({ code: 0, signal: null });
    for (const port of [ports.core, ports.extension, ports.anchor, ports.chain]) {
      expect(await listenOn(port)).toBe(port);
    }
  });
});
