/**
 * The checkpoint log's appender (docs/protocol.md §13.5 "The checkpoint log"): entries are the
 * unsigned note texts of the anchored user checkpoints, in anchoring order, each logged once even
 * under concurrent appenders; every head is a checkpoint signed by the log key whose root is the
 * RFC 9162 root of the entries, and each head is consistent with the previous one. The cursor
 * (the last entry's `log_seq`) skips no checkpoint whose anchoring transaction commits late.
 */
import { createHash } from "node:crypto";
import type { LogKey } from "@verifiable-memory/app-config";
import {
  checkpointLogEntriesRange,
  checkpointLogNodeSource,
  insertAnchoredCheckpoint,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import {
  consistencyProof,
  hashLeaf,
  rootFromLeafHashes,
  verifyConsistency,
} from "@verifiable-memory/merkle-log";
import {
  encodeBase64,
  openCheckpoint,
  parseVerifierKey,
  signerFromSeed,
} from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendUserCheckpoints } from "../src/checkpoint-log.js";
import { makeUser, type TestUser } from "./_memories.js";
import { waitFor } from "./_wait.js";

const ORIGIN = "log.test/tlog";
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const signer = signerFromSeed(ORIGIN, sha256(Uint8Array.of(42)));
const logKey: LogKey = { origin: ORIGIN, signer, verifiers: [signer] };
const verifier = parseVerifierKey(signer.vkey);
const decoder = new TextDecoder();

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 10 });
});
afterAll(async () => {
  await t?.close();
});

async function anchor(user: TestUser, size: number, at: number): Promise<Uint8Array> {
  const root = sha256(new TextEncoder().encode(`${user.id} ${size}`));
  await insertAnchoredCheckpoint(t.db, {
    userId: user.id,
    treeSize: size,
    root,
    nonce: size,
    signature: `sig-${user.id}-${size}`,
    anchoredAt: new Date(at),
  });
  return root;
}

describe("appendUserCheckpoints", () => {
  it("logs each anchored user checkpoint once, in order, under a signed consistent head", async () => {
    expect(await appendUserCheckpoints(t.db, logKey)).toBeNull();
    const [a, b] = [await makeUser(t.db), await makeUser(t.db)];
    const rootA3 = await anchor(a, 3, 1_000);
    const rootB1 = await anchor(b, 1, 2_000);
    const first = await appendUserCheckpoints(t.db, logKey);
    expect(first?.appended).toBe(2);
    const entries1 = (await checkpointLogEntriesRange(t.db, 0, 10)).map((e) => decoder.decode(e));
    expect(entries1).toEqual([
      `${ORIGIN}/users/${a.ownerPubkey}\n3\n${encodeBase64(rootA3)}\n`,
      `${ORIGIN}/users/${b.ownerPubkey}\n1\n${encodeBase64(rootB1)}\n`,
    ]);
    const head1 = openCheckpoint(first?.head.note as string, [verifier], ORIGIN).checkpoint;
    expect(head1.size).toBe(2);
    expect(head1.rootHash).toEqual(
      rootFromLeafHashes(entries1.map((e) => hashLeaf(new TextEncoder().encode(e)))),
    );
    expect(await appendUserCheckpoints(t.db, logKey)).toBeNull();

    await anchor(a, 7, 3_000);
    const second = await appendUserCheckpoints(t.db, logKey);
    const head2 = openCheckpoint(second?.head.note as string, [verifier], ORIGIN).checkpoint;
    expect(head2.size).toBe(3);
    const proof = await consistencyProof(2, 3, checkpointLogNodeSource(t.db));
    verifyConsistency(2, 3, proof, head1.rootHash, head2.rootHash);
  });

  it("never logs a checkpoint twice when appenders race", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => makeUser(t.db)));
    await Promise.all(users.map((u, i) => anchor(u, i + 1, 10_000 + i)));
    const before = (await checkpointLogEntriesRange(t.db, 0, 1_000)).length;
    const results = await Promise.all(
      Array.from({ length: 4 }, () => appendUserCheckpoints(t.db, logKey, 4)),
    );
    const appended = results.reduce((n, r) => n + (r?.appended ?? 0), 0);
    expect(appended).toBe(6);
    const entries = await checkpointLogEntriesRange(t.db, 0, 1_000);
    expect(entries).toHaveLength(before + 6);
    expect(new Set(entries.map((e) => decoder.decode(e))).size).toBe(entries.length);
  });

  it("waits for an anchoring that drew a lower log_seq and commits late, and logs it", async () => {
    const [early, late] = [await makeUser(t.db), await makeUser(t.db)];
    const before = (await checkpointLogEntriesRange(t.db, 0, 10_000)).length;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let drawn: () => void = () => {};
    const inserted = new Promise<void>((resolve) => {
      drawn = resolve;
    });
    const open = t.db.transaction(async (tx) => {
      await insertAnchoredCheckpoint(tx, {
        userId: early.id,
        treeSize: 1,
        root: sha256(Uint8Array.of(1)),
        nonce: 1,
        signature: `sig-${early.id}-1`,
      });
      drawn();
      await released;
    });
    await inserted;
    await insertAnchoredCheckpoint(t.db, {
      userId: late.id,
      treeSize: 1,
      root: sha256(Uint8Array.of(2)),
      nonce: 1,
      signature: `sig-${late.id}-1`,
    });

    const appending = appendUserCheckpoints(t.db, logKey);
    const lockWait = waitFor("the appender to wait for the open anchoring", async () => {
      const [row] = await t.sql<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_locks
        where database = (select oid from pg_database where datname = current_database())
          and relation = 'anchored_checkpoints'::regclass and mode = 'ShareLock' and not granted`;
      return (row?.waiting ?? 0) > 0;
    });
    // A cursor read without waiting would log only the later checkpoint and then skip the other.
    const first = await Promise.race([
      appending.then(() => "appended"),
      lockWait.then(() => "waiting"),
    ]);
    release();
    await open;
    expect(first).toBe("waiting");
    const seqs = await t.sql<{ user_id: string; log_seq: string }[]>`
      select user_id, log_seq from anchored_checkpoints where user_id in (${early.id}, ${late.id})`;
    const seqOf = (id: string) => Number(seqs.find((r) => r.user_id === id)?.log_seq);
    expect(seqOf(early.id)).toBeLessThan(seqOf(late.id));
    expect((await appending)?.appended).toBe(2);
    expect(await appendUserCheckpoints(t.db, logKey)).toBeNull();
    const entries = (await checkpointLogEntriesRange(t.db, before, 10)).map((e) =>
      decoder.decode(e),
    );
    expect(entries.map((e) => e.split("\n")[0])).toEqual([
      `${ORIGIN}/users/${early.ownerPubkey}`,
      `${ORIGIN}/users/${late.ownerPubkey}`,
    ]);
  });

  it("moves its cursor past anchored checkpoints already logged as sealed trees", async () => {
    const user = await makeUser(t.db);
    const sealed = {
      userId: user.id,
      owner: user.ownerPubkey,
      treeSize: 5,
      root: sha256(Uint8Array.of(5)),
    };
    expect((await appendUserCheckpoints(t.db, logKey, 100, [sealed]))?.appended).toBe(1);
    await anchor(user, 5, 50_000);
    const [row] = await t.sql<{ log_seq: string }[]>`
      select log_seq from anchored_checkpoints where user_id = ${user.id} and tree_size = 5`;
    expect(await appendUserCheckpoints(t.db, logKey)).toBeNull();
    const [head] = await t.sql<{ log_seq_cursor: string }[]>`
      select log_seq_cursor from checkpoint_log_heads order by tree_size desc limit 1`;
    expect(head?.log_seq_cursor).toBe(row?.log_seq);

    const root6 = await anchor(user, 6, 60_000);
    const next = await appendUserCheckpoints(t.db, logKey);
    expect(next?.appended).toBe(1);
    const [entry] = await checkpointLogEntriesRange(t.db, (next?.head.treeSize ?? 1) - 1, 1);
    expect(decoder.decode(entry)).toBe(
      `${ORIGIN}/users/${user.ownerPubkey}\n6\n${encodeBase64(root6)}\n`,
    );
  });
});
