/**
 * What every figure of the memories bench shares: the bench user (signed in over HTTP, its data
 * key unwrapped), the seeded texts (~200 bytes of words, a needle every NEEDLE_EVERY-th) and
 * metadata, seeding through core-api's MemoryService, the raw baselines of recall (a per-row
 * fetch-all + decrypt, an in-process `includes` scan), the HTTP search, and anchored checkpoints
 * inserted directly (no chain in this bench).
 * @module
 */
import { createDecipheriv, randomInt } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import type { Config } from "@verifiable-memory/core-api";
import {
  type Database,
  type DatabaseHandle,
  getUserById,
  insertAnchoredCheckpoint,
} from "@verifiable-memory/db-schema";
import { AppendQueue, type Caller, MemoryService, RecallCache } from "@verifiable-memory/memory";
import type { Hash } from "@verifiable-memory/merkle-log";
import { rawBodyAad } from "../lib.js";
import { newWallet, postJson, signIn } from "../sign-in.bench.js";

/** Concurrent clients of the write figures, and connections of the bench's pools. */
export const CLIENTS = 16;
/** Memories per transaction when seeding. */
const SEED_BATCH = 5_000;
/** The text every NEEDLE_EVERY-th seeded memory holds. */
export const NEEDLE = "zephyr-quartz";
const NEEDLE_EVERY = 10_000;
/** Seeded memories' `metadata.n` cycles through 0 to FILTER_CYCLE - 1. */
const FILTER_CYCLE = 10_000;
/** Rounds of the warm figures, each of WARM_QUERIES queries per side. */
export const WARM_ROUNDS = 5;
export const WARM_QUERIES = 20;

/** A signed-in user as the bench needs it: ids, bearer header and data key. */
export interface BenchUser extends Caller {
  readonly headers: Record<string, string>;
  readonly dataKey: Uint8Array;
}

/** Signs a fresh wallet in over HTTP and unwraps its data key from the users row. */
export async function newUser(url: string, db: Database, config: Config): Promise<BenchUser> {
  const wallet = newWallet();
  const { token, userId } = await signIn(url, wallet);
  const user = await getUserById(db, userId);
  if (!user) {
    throw new Error(`user ${userId} missing after sign-in`);
  }
  return {
    userId,
    ownerPubkey: wallet.publicKey,
    credential: "session",
    apiKeyId: null,
    namespace: null,
    headers: { authorization: `Bearer ${token}` },
    dataKey: config.masterKeys.unwrap(user.wrappedDataKey, userId),
  };
}

const WORDS = (
  "memory agent wallet ledger anchor proof recall merkle leaf root chain sealed envelope " +
  "garden river window orange planet signal morning travel coffee meeting project budget " +
  "invoice friday weekly notes remember prefers allergic birthday address office server"
).split(" ");

/** ~200 bytes of lower-case words; every NEEDLE_EVERY-th one contains the needle. */
export function memoryText(i: number): string {
  const words: string[] = i % NEEDLE_EVERY === 0 ? [NEEDLE] : [];
  let length = words.join(" ").length;
  while (length < 200) {
    const word = WORDS[randomInt(WORDS.length)] as string;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ").slice(0, 200);
}

/**
 * The metadata of the i-th seeded memory: `n` cycles through 0–9 999 (so `{ n: 7 }` matches 10 of
 * 100 000 and a filter-only query examines them all), `topic` through seven words.
 */
export function metadataOf(i: number): { n: number; topic: string } {
  return { n: i % FILTER_CYCLE, topic: WORDS[i % 7] as string };
}

/** Writes `contents` through core-api's MemoryService (group commit, SEED_BATCH per transaction). */
export async function seed(
  db: Database,
  user: BenchUser,
  contents: readonly string[],
): Promise<string[]> {
  const service = new MemoryService({
    db,
    clock: systemClock,
    appendQueue: new AppendQueue(db, { maxBatch: SEED_BATCH }),
    recall: new RecallCache({ db, clock: systemClock, maxBytes: 0 }),
  });
  const ids: string[] = [];
  for (let start = 0; start < contents.length; start += SEED_BATCH) {
    const batch = contents.slice(start, start + SEED_BATCH);
    const created = await Promise.all(
      batch.map((content, k) =>
        service.create(user, user.dataKey, { content, metadata: metadataOf(start + k) }),
      ),
    );
    ids.push(...created.map((m) => m.id));
  }
  return ids;
}

/** Raw cold baseline: every live row of the user with postgres.js, opened with node:crypto. */
export async function rawFetchAndDecrypt(pg: DatabaseHandle, user: BenchUser): Promise<string[]> {
  const rows = await pg.sql<{ id: string; ciphertext: Buffer; iv: Buffer }[]>`
    select id, ciphertext, iv from memories
    where user_id = ${user.userId} and deleted_at is null order by leaf_index`;
  return rows.map((row) => {
    const tag = row.ciphertext.length - 16;
    const d = createDecipheriv("aes-256-gcm", user.dataKey, row.iv, { authTagLength: 16 });
    d.setAAD(rawBodyAad({ userId: user.userId, memoryId: row.id }));
    d.setAuthTag(row.ciphertext.subarray(tag));
    const plaintext = Buffer.concat([d.update(row.ciphertext.subarray(1, tag)), d.final()]);
    return plaintext.toString("utf8", 16);
  });
}

/** Raw warm baseline: newest-first `includes` scan of the plaintexts, stopping at `limit`. */
export function rawScan(contents: readonly string[], needle: string, limit: number): string[] {
  const found: string[] = [];
  for (let i = contents.length - 1; i >= 0 && found.length < limit; i--) {
    const text = contents[i] as string;
    if (text.includes(needle)) {
      found.push(text);
    }
  }
  return found;
}

/** POST /memories/search for the needle; checks that every planted match came back. */
export async function search(url: string, user: BenchUser, expected: number): Promise<void> {
  const res = await postJson<{ items: unknown[]; scanned: number }>(
    `${url}/memories/search`,
    { query: NEEDLE, limit: 20 },
    user.headers,
  );
  if (res.status !== 200 || res.body.items.length !== expected) {
    throw new Error(`search: ${res.status}, ${res.body.items?.length} of ${expected} matches`);
  }
}

/** Records an anchored checkpoint of the user's tree at `size` (no chain in this bench). */
export async function anchorAt(
  db: Database,
  userId: string,
  size: number,
  root: Hash,
): Promise<void> {
  await insertAnchoredCheckpoint(db, {
    userId,
    treeSize: size,
    root,
    nonce: 1,
    signature: "bench-checkpoint",
  });
}
