/**
 * The master-key start-up check and the re-wrapping of `pnpm rotate-master-key` against real
 * PostgreSQL and real AES-256-GCM: key ids read from the stored wraps (version 2) and version-1
 * wraps from before key ids, a missing or wrong key named by its id, batches that leave every
 * data key unchanged under the new key, two rotations at once, a rerun that writes nothing, the
 * conditional update that never overwrites a row changed meanwhile, and concurrent replacements
 * that queue instead of deadlocking.
 * @module
 */
import { randomBytes } from "node:crypto";
import {
  countUsersByMasterKeyId,
  getUserById,
  listDataKeysNotUnder,
  replaceWrappedDataKeys,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import {
  generateDataKey,
  MasterKeyring,
  masterKeyId,
  wrapDataKey,
  wrappedKeyId,
} from "@verifiable-memory/envelope-crypto";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkMasterKeys,
  MissingMasterKeyError,
  type RotationProgress,
  rotateDataKeys,
} from "../src/index.js";
import { createTestOwner, wrapVersionOneDataKey } from "../src/testing/index.js";

const oldKey = new Uint8Array(randomBytes(32));
const newKey = new Uint8Array(randomBytes(32));
const thirdKey = new Uint8Array(randomBytes(32));
const oldId = masterKeyId(oldKey);
const newId = masterKeyId(newKey);
const thirdId = masterKeyId(thirdKey);

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

/** A user whose data key is a version-1 wrap under `kek` (a row from before key ids). */
async function versionOneUser(kek: Uint8Array) {
  const dataKey = generateDataKey();
  const { user } = await upsertUserByPubkey(t.db, {
    ownerPubkey: bs58.encode(randomBytes(32)),
    makeWrappedKey: (userId) => wrapVersionOneDataKey(kek, dataKey, userId),
  });
  return { userId: user.id, dataKey };
}

/** Expects `promise` to reject with a MissingMasterKeyError and returns it. */
async function missing(promise: Promise<unknown>): Promise<MissingMasterKeyError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MissingMasterKeyError);
  return error as MissingMasterKeyError;
}

describe("master keys of the stored data keys", () => {
  const users: { userId: string; dataKey: Uint8Array }[] = [];

  it("the stored column names the wrap's key id; version-1 wraps name none", async () => {
    for (let i = 0; i < 7; i++) {
      const owner = await createTestOwner(t.db, oldKey);
      users.push({ userId: owner.owner.userId, dataKey: owner.dataKey });
    }
    for (let i = 0; i < 3; i++) {
      users.push(await versionOneUser(oldKey));
    }
    expect(await countUsersByMasterKeyId(t.db)).toEqual([
      { masterKeyId: oldId, users: 7 },
      { masterKeyId: null, users: 3 },
    ]);
    expect(await checkMasterKeys(t.db, new MasterKeyring(oldKey))).toHaveLength(2);
  });

  it("fails at start naming the key id no configured key has (missing or wrong key)", async () => {
    const error = await missing(checkMasterKeys(t.db, new MasterKeyring(newKey)));
    expect(error.missing).toEqual([
      { masterKeyId: oldId, users: 7 },
      { masterKeyId: null, users: 3 },
    ]);
    expect(error.message).toContain(`master key id ${oldId} is not configured; 7 users`);
    expect(error.message).toContain(newId);
    // The old key in the list of previous keys is enough.
    await checkMasterKeys(t.db, new MasterKeyring(newKey, [oldKey]));
  });

  it("re-wraps every data key under the new key in batches; the data keys stay the same", async () => {
    const keys = new MasterKeyring(newKey, [oldKey]);
    const progress: RotationProgress[] = [];
    const result = await rotateDataKeys(t.db, keys, {
      batchSize: 4,
      onProgress: (p) => progress.push(p),
    });
    expect(result).toEqual({ masterKeyId: newId, rewrapped: 10, skipped: 0, remaining: [] });
    expect(progress).toEqual([
      { done: 0, total: 10 },
      { done: 4, total: 10 },
      { done: 8, total: 10 },
      { done: 10, total: 10 },
    ]);
    expect(await countUsersByMasterKeyId(t.db)).toEqual([{ masterKeyId: newId, users: 10 }]);
    const onlyNew = new MasterKeyring(newKey);
    await checkMasterKeys(t.db, onlyNew);
    for (const u of users) {
      const row = await getUserById(t.db, u.userId);
      expect(wrappedKeyId(row?.wrappedDataKey as Uint8Array)).toBe(newId);
      expect(onlyNew.unwrap(row?.wrappedDataKey as Uint8Array, u.userId)).toEqual(u.dataKey);
    }
    // Now the old key alone no longer opens anything: its absence is what the check reports.
    const error = await missing(checkMasterKeys(t.db, new MasterKeyring(oldKey)));
    expect(error.missing).toEqual([{ masterKeyId: newId, users: 10 }]);
  });

  it("a rerun is a no-op: nothing to re-wrap, nothing written", async () => {
    const before = await t.sql`select id, wrapped_data_key from users order by id`;
    const progress: RotationProgress[] = [];
    const result = await rotateDataKeys(t.db, new MasterKeyring(newKey), {
      onProgress: (p) => progress.push(p),
    });
    expect(result).toEqual({ masterKeyId: newId, rewrapped: 0, skipped: 0, remaining: [] });
    expect(progress).toEqual([{ done: 0, total: 0 }]);
    expect(await t.sql`select id, wrapped_data_key from users order by id`).toEqual(before);
  });

  it("two rotations at once share the work and re-wrap each key once", async () => {
    const keys = new MasterKeyring(thirdKey, [newKey]);
    const [a, b] = await Promise.all([
      rotateDataKeys(t.db, keys, { batchSize: 2 }),
      rotateDataKeys(t.db, keys, { batchSize: 3 }),
    ]);
    expect(a.rewrapped + b.rewrapped).toBe(10);
    expect(a.remaining).toEqual([]);
    expect(b.remaining).toEqual([]);
    const onlyThird = new MasterKeyring(thirdKey);
    for (const u of users) {
      const row = await getUserById(t.db, u.userId);
      expect(onlyThird.unwrap(row?.wrappedDataKey as Uint8Array, u.userId)).toEqual(u.dataKey);
    }
  });

  it("the update is conditional: a row changed since it was read is left alone", async () => {
    const u = users[0] as { userId: string; dataKey: Uint8Array };
    const stored = (await getUserById(t.db, u.userId))?.wrappedDataKey as Uint8Array;
    const replacement = wrapDataKey(newKey, u.dataKey, u.userId);
    expect(
      await replaceWrappedDataKeys(t.db, [
        { userId: u.userId, expected: randomBytes(69), wrappedDataKey: replacement },
      ]),
    ).toBe(0);
    expect((await getUserById(t.db, u.userId))?.wrappedDataKey).toEqual(stored);
    await expect(listDataKeysNotUnder(t.db, newId, { after: null, limit: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(rotateDataKeys(t.db, new MasterKeyring(newKey), { batchSize: 0 })).rejects.toThrow(
      RangeError,
    );
  });

  it("concurrent replacements of the same users in any order: each row changes once, none deadlocks", async () => {
    for (let round = 0; round < 20; round++) {
      const stored = await Promise.all(
        users.map(async (u) => (await getUserById(t.db, u.userId))?.wrappedDataKey as Uint8Array),
      );
      const runs = Array.from({ length: 4 }, () =>
        replaceWrappedDataKeys(
          t.db,
          users
            .map((u, i) => ({
              userId: u.userId,
              expected: stored[i] as Uint8Array,
              wrappedDataKey: wrapDataKey(thirdKey, u.dataKey, u.userId),
            }))
            .sort(() => Math.random() - 0.5),
        ),
      );
      // Each row holds `expected` for exactly one of the four: it changes exactly once.
      const changed = await Promise.all(runs);
      expect(changed.reduce((sum, n) => sum + n, 0)).toBe(users.length);
    }
    const onlyThird = new MasterKeyring(thirdKey);
    for (const u of users) {
      const row = await getUserById(t.db, u.userId);
      expect(onlyThird.unwrap(row?.wrappedDataKey as Uint8Array, u.userId)).toEqual(u.dataKey);
    }
  });

  it("a data key that does not open under the key it names stops the run naming the user", async () => {
    const damaged = await versionOneUser(randomBytes(32));
    // A version-1 wrap under a key nobody has: the start-up check already refuses...
    const error = await missing(rotateDataKeys(t.db, new MasterKeyring(thirdKey)));
    expect(error.missing).toEqual([{ masterKeyId: null, users: 1 }]);
    // ...and a version-2 wrap naming a configured id but sealed under another key (a damaged
    // row) stops the batch that meets it, naming the user, with nothing of that batch written.
    const forged = wrapDataKey(oldKey, generateDataKey(), damaged.userId);
    forged.set(Buffer.from(thirdId, "hex"), 1);
    await t.sql`update users set wrapped_data_key = ${Buffer.from(forged)} where id = ${damaged.userId}`;
    await expect(rotateDataKeys(t.db, new MasterKeyring(newKey, [thirdKey]))).rejects.toThrow(
      `user ${damaged.userId}: its data key does not open`,
    );
  });
});
