/**
 * The checkpoint log anchored on chain (docs/protocol.md §13.5 "The checkpoint log"): real
 * PostgreSQL, the local chain in process with the real commitment program. After a sweep the
 * checkpoint log account holds the signed head's root and size, a second interval advances size
 * and nonce, and a database restored from a pg_dump backup taken before that interval (the
 * account now ahead of it), or a log that forked at the account's size or below it, is refused:
 * nothing signed, nothing sent, an error logged and counted.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import type { LogKey } from "@verifiable-memory/app-config";
import {
  checkpointLogEntriesRange,
  checkpointLogNodeSource,
  type Database,
  insertAnchoredCheckpoint,
  latestCheckpointLogHead,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { requestAirdrop } from "@verifiable-memory/litesvm-rpc";
import { consistencyProof, toHex, verifyConsistency } from "@verifiable-memory/merkle-log";
import { openCheckpoint, parseVerifierKey, signerFromSeed } from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anchorCheckpointLog, appendUserCheckpoints } from "../src/checkpoint-log.js";
import { type AnchorMetrics, createMetrics } from "../src/metrics.js";
import { runSweep } from "../src/sweep.js";
import { captureLogger, startTestChain, type TestChain } from "./_chain.js";
import { makeUser, seedMemories } from "./_memories.js";
import { waitFor } from "./_wait.js";

const ORIGIN = "anchor.test/tlog";
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const signer = signerFromSeed(ORIGIN, sha256(Uint8Array.of(7)));
const logKey: LogKey = { origin: ORIGIN, signer, verifiers: [signer] };
const verifier = parseVerifierKey(signer.vkey);

let t: TestDatabase;
let testChain: TestChain;
let chain: ReturnType<TestChain["client"]>;
const extraDatabases: TestDatabase[] = [];

beforeAll(async () => {
  [t, testChain] = await Promise.all([createTestDatabase({ max: 4 }), startTestChain()]);
  chain = testChain.client(await testChain.authority());
});
afterAll(async () => {
  await Promise.all([t?.close(), testChain?.close(), ...extraDatabases.map((d) => d.close())]);
});

function deps(db: Database, client = chain) {
  const { logger, lines } = captureLogger();
  const metrics = createMetrics({ db, intervalMs: 30_000 });
  return { db, logKey, chain: client, logger, lines, metrics };
}

/** A fresh database holding `n` anchored user checkpoints not yet in the checkpoint log. */
async function databaseWithCheckpoints(n: number, seed: number): Promise<TestDatabase> {
  const db = await createTestDatabase({ max: 2 });
  extraDatabases.push(db);
  for (let i = 0; i < n; i++) {
    await insertAnchoredCheckpoint(db.db, {
      userId: (await makeUser(db.db)).id,
      treeSize: 1,
      root: sha256(Uint8Array.of(seed + i)),
      nonce: 1,
      signature: `sig-${seed}-${i}`,
      anchoredAt: new Date(1_000 + i),
    });
  }
  return db;
}

async function sweep(db: Database) {
  const report = await runSweep({
    db,
    chain,
    logger: captureLogger().logger,
    metrics: createMetrics({ db, intervalMs: 30_000 }),
    config: { sealMaxPending: 256, sealMaxAgeMs: 0, maxInFlight: 4 },
  });
  expect(report.failed + report.timedOut).toBe(0);
}

async function forkReports(metrics: AnchorMetrics): Promise<number> {
  const { values } = await metrics.integrityReports.get();
  return values.find((v) => v.labels.kind === "checkpoint_log_fork")?.value ?? 0;
}

/**
 * Why pg_dump cannot back `db` up here, or null. pg_dump refuses a server of a newer major
 * version, and a machine running only the embedded PostgreSQL may have no client tools at all.
 */
async function backupUnavailable(db: TestDatabase): Promise<string | null> {
  let version: string;
  try {
    version = execFileSync("pg_dump", ["--version"], { encoding: "utf8" });
  } catch {
    return "pg_dump is not installed";
  }
  const client = Number(/(\d+)\./.exec(version)?.[1]);
  const rows = (await db.db.execute("show server_version_num")) as unknown as {
    server_version_num: string;
  }[];
  const server = Math.floor(Number(rows[0]?.server_version_num) / 10_000);
  return client >= server ? null : `pg_dump ${client} cannot dump PostgreSQL ${server}`;
}

/** A real backup: pg_dump of the whole database, as plain SQL. */
function backup(db: TestDatabase): string {
  return execFileSync("pg_dump", ["--no-owner", "--no-privileges", "-d", db.url], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Restores `dump` into a fresh empty database with psql. */
async function restore(dump: string): Promise<TestDatabase> {
  const restored = await createTestDatabase({ empty: true, max: 2 });
  extraDatabases.push(restored);
  execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-d", restored.url], {
    input: dump,
    stdio: ["pipe", "ignore", "pipe"],
  });
  return restored;
}

let dumpAfterFirst = "";
let noBackup: string | null = null;

describe("anchoring the checkpoint log", () => {
  it("puts the signed head's root and size in the account; the next interval advances size and nonce", async () => {
    const [a, b] = [await makeUser(t.db), await makeUser(t.db)];
    await seedMemories(t.db, a, 3);
    await seedMemories(t.db, b, 1);
    await sweep(t.db);
    const first = deps(t.db);
    expect(await chain.readCheckpointLog()).toBeNull();
    const outcome1 = await anchorCheckpointLog(first);
    expect(outcome1).toMatchObject({ outcome: "anchored", appended: 2, size: 2, nonce: 1 });

    const head1 = await latestCheckpointLogHead(t.db);
    const signed1 = openCheckpoint(head1?.note ?? "", [verifier], ORIGIN).checkpoint;
    const account1 = await chain.readCheckpointLog();
    expect(account1).toMatchObject({ size: 2, nonce: 1, authority: chain.authorityAddress });
    expect(toHex(account1?.root ?? new Uint8Array())).toBe(toHex(signed1.rootHash));
    expect(signed1.size).toBe(2);
    expect(head1).toMatchObject({
      anchorSignature: outcome1.outcome === "anchored" ? outcome1.signature : "",
      anchorNonce: 1,
    });
    const tx = await chain.getTransaction(head1?.anchorSignature ?? "");
    expect(tx).toMatchObject({ err: null, slot: head1?.anchorSlot });

    // Nothing new: no transaction, the account unchanged.
    expect(await anchorCheckpointLog(deps(t.db))).toEqual({ outcome: "current", size: 2 });
    expect((await chain.readCheckpointLog())?.nonce).toBe(1);
    noBackup = await backupUnavailable(t);
    if (noBackup === null) {
      dumpAfterFirst = backup(t);
    }

    await seedMemories(t.db, a, 2);
    await sweep(t.db);
    // Appended and signed but not anchored (as after a failed anchor): the account (size 2) is a
    // prefix of the stored log (size 3), so the next step anchors the stored head.
    expect((await appendUserCheckpoints(t.db, logKey))?.head.treeSize).toBe(3);
    const outcome2 = await anchorCheckpointLog(deps(t.db));
    expect(outcome2).toMatchObject({ outcome: "anchored", appended: 0, size: 3, nonce: 2 });
    const head2 = await latestCheckpointLogHead(t.db);
    const signed2 = openCheckpoint(head2?.note ?? "", [verifier], ORIGIN).checkpoint;
    const account2 = await chain.readCheckpointLog();
    expect(account2).toMatchObject({ size: 3, nonce: 2 });
    expect(toHex(account2?.root ?? new Uint8Array())).toBe(toHex(signed2.rootHash));
    const proof = await consistencyProof(2, 3, checkpointLogNodeSource(t.db));
    verifyConsistency(2, 3, proof, signed1.rootHash, signed2.rootHash);
  });

  it("refuses a database restored from a backup the account has moved past", async (ctx) => {
    if (noBackup !== null) {
      console.warn(`checkpoint-log anchor: skipped the backup test (${noBackup})`);
      ctx.skip();
    }
    expect(dumpAfterFirst).not.toBe("");
    const restored = await restore(dumpAfterFirst);
    expect((await latestCheckpointLogHead(restored.db))?.treeSize).toBe(2);
    // A user checkpoint waiting to be logged: the refusal must not append or sign it.
    const user = await makeUser(restored.db);
    await insertAnchoredCheckpoint(restored.db, {
      userId: user.id,
      treeSize: 1,
      root: sha256(Uint8Array.of(1)),
      nonce: 1,
      signature: "restored-sig",
      anchoredAt: new Date(),
    });
    const before = await chain.readCheckpointLog();
    const d = deps(restored.db);
    expect(await anchorCheckpointLog(d)).toEqual({
      outcome: "refused",
      reason: "account_ahead",
      accountSize: 3,
      storedSize: 2,
    });
    expect((await latestCheckpointLogHead(restored.db))?.treeSize).toBe(2);
    expect(await checkpointLogEntriesRange(restored.db, 0, 10)).toHaveLength(2);
    expect(await chain.readCheckpointLog()).toEqual(before);
    expect(await forkReports(d.metrics)).toBe(1);
    expect(d.lines.find((l) => l.level === 50)).toMatchObject({
      reason: "account_ahead",
      accountSize: 3,
      storedSize: 2,
    });
  });

  it("refuses a log with another root at the account's size, and one that forked below it", async () => {
    const other = await databaseWithCheckpoints(4, 100);
    const before = await chain.readCheckpointLog();
    expect(before?.size).toBe(3);
    // Three entries signed by another process (same size as the account, another root).
    expect((await appendUserCheckpoints(other.db, logKey, 3))?.head.treeSize).toBe(3);
    const equal = deps(other.db);
    expect(await anchorCheckpointLog(equal)).toMatchObject({
      outcome: "refused",
      reason: "root_conflict",
    });
    expect(await forkReports(equal.metrics)).toBe(1);
    // Past the account's size, the stored log's root at that size still differs.
    expect((await appendUserCheckpoints(other.db, logKey, 3))?.head.treeSize).toBe(4);
    expect(await anchorCheckpointLog(deps(other.db))).toMatchObject({
      outcome: "refused",
      reason: "root_conflict",
      accountSize: 3,
      storedSize: 4,
    });
    expect(await chain.readCheckpointLog()).toEqual(before);
  });

  it("signs nothing while the account cannot be read; a failed anchor is retried with the latest head", async () => {
    const db = await databaseWithCheckpoints(2, 200);
    const poor = await testChain.authority(0);
    const down = deps(db.db, testChain.client(poor, "http://127.0.0.1:1"));
    expect(await anchorCheckpointLog(down)).toMatchObject({
      outcome: "unavailable",
      reason: "chain_unavailable",
    });
    expect(await latestCheckpointLogHead(db.db)).toBeNull();

    // Unfunded: the head is signed, the anchor transaction refused, nothing recorded.
    const client = testChain.client(poor);
    expect(await anchorCheckpointLog(deps(db.db, client))).toMatchObject({
      outcome: "failed",
      reason: "insufficient_funds",
      appended: 2,
    });
    expect(await latestCheckpointLogHead(db.db)).toMatchObject({
      treeSize: 2,
      anchorSignature: null,
    });
    expect(await client.readCheckpointLog()).toBeNull();

    await requestAirdrop(testChain.url, poor.publicKey.toBase58(), 1e9);
    await waitFor("the airdrop", async () => (await client.authorityBalance()) > 0);
    expect(await anchorCheckpointLog(deps(db.db, client))).toMatchObject({
      outcome: "anchored",
      appended: 0,
      size: 2,
      nonce: 1,
    });
    const head = await latestCheckpointLogHead(db.db);
    expect((await client.readCheckpointLog())?.root).toEqual(head?.root);
    expect(head?.anchorSignature).toEqual(expect.any(String));
  });
});
