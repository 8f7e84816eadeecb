/**
 * Master-key rotation over the stored data keys (docs/security.md "Master-key rotation"): the
 * start-up check that every stored data key names a configured master key, and the re-wrapping
 * `pnpm rotate-master-key` runs while the service serves. Only the 69-byte wrapped data keys
 * change; memory bodies stay sealed under the same data keys and are never re-encrypted.
 * @module
 */
import {
  countUsersByMasterKeyId,
  type Database,
  type DataKeyReplacement,
  findVersionOneDataKey,
  listDataKeysNotUnder,
  type MasterKeyIdCount,
  replaceWrappedDataKeys,
  type StoredDataKey,
} from "@verifiable-memory/db-schema";
import { DecryptionError, type MasterKeyring } from "@verifiable-memory/envelope-crypto";

/**
 * Stored data keys need a master key that is not configured. Thrown by {@link checkMasterKeys}
 * so that a process stops at start instead of failing on those users' requests.
 */
export class MissingMasterKeyError extends Error {
  /**
   * The groups of data keys nothing configured opens: a master key id, or null for version-1
   * wraps (from before key ids) that opened under none of the configured keys.
   */
  readonly missing: readonly MasterKeyIdCount[];

  /**
   * @param missing the groups no configured key opens.
   * @param configured the ids of the configured keys, current first.
   */
  constructor(missing: readonly MasterKeyIdCount[], configured: readonly string[]) {
    const lines = missing.map((group) =>
      group.masterKeyId === null
        ? `  ${group.users} users' data keys were wrapped before key ids existed and open under none of the configured master keys`
        : `  master key id ${group.masterKeyId} is not configured; ${group.users} users' data keys are wrapped under it`,
    );
    super(
      [
        "stored data keys need a master key this process does not have:",
        ...lines,
        `configured master key ids: ${configured.join(", ")} (MASTER_ENCRYPTION_KEY first, then MASTER_ENCRYPTION_KEYS_PREVIOUS).`,
        "Add the missing key to MASTER_ENCRYPTION_KEYS_PREVIOUS (docs/operations.md, master-key rotation).",
      ].join("\n"),
    );
    this.name = "MissingMasterKeyError";
    this.missing = missing;
  }
}

/**
 * Checks, at start, that every stored data key opens under the configured master keys: one
 * grouped query (`SELECT master_key_id, count(*) FROM users GROUP BY master_key_id`, on its
 * index) finds the key ids the wraps name; version-1 wraps (no key id) are checked by opening one
 * of them under each configured key.
 * @returns the users per master key id (NULL: version-1 wraps), for the start-up log line.
 * @throws MissingMasterKeyError naming each key id (with its number of users) that no configured
 *   key has, or the version-1 wraps when none of the keys opens their sample.
 * @throws DecryptionError when the version-1 sample is damaged (`malformed`, `unsupported_version`);
 *   database errors.
 */
export async function checkMasterKeys(
  db: Database,
  keys: MasterKeyring,
): Promise<MasterKeyIdCount[]> {
  const counts = await countUsersByMasterKeyId(db);
  const missing = counts.filter((c) => c.masterKeyId !== null && !keys.has(c.masterKeyId));
  const versionOne = counts.find((c) => c.masterKeyId === null);
  if (versionOne) {
    const sample = await findVersionOneDataKey(db);
    if (sample && !opens(keys, sample.wrappedDataKey, sample.userId)) {
      missing.push(versionOne);
    }
  }
  if (missing.length > 0) {
    throw new MissingMasterKeyError(missing, keys.ids);
  }
  return counts;
}

/** Whether a version-1 wrap opens under one of the keys (false on `authentication_failed`). */
function opens(keys: MasterKeyring, wrapped: Uint8Array, userId: string): boolean {
  try {
    keys.unwrap(wrapped, userId);
    return true;
  } catch (error) {
    if (error instanceof DecryptionError && error.code === "authentication_failed") {
      return false;
    }
    throw error;
  }
}

/** Where a rotation stands, reported after the check and after every batch. */
export interface RotationProgress {
  /** Data keys looked at so far (re-wrapped here, or found re-wrapped by another run). */
  readonly done: number;
  /** Data keys not under the current key when the run started, grown if more appeared since. */
  readonly total: number;
}

/** The outcome of {@link rotateDataKeys}. */
export interface RotationResult {
  /** The current master key's id, the one every data key is now wrapped under. */
  readonly masterKeyId: string;
  /** Data keys this run re-wrapped. */
  readonly rewrapped: number;
  /** Data keys another writer changed between this run's read and its update (left alone). */
  readonly skipped: number;
  /**
   * Users per master key id still not under the current key once the pass ended (normally
   * empty; non-empty when a process still wrapping under an old key created users meanwhile).
   */
  readonly remaining: readonly MasterKeyIdCount[];
}

/** Options of {@link rotateDataKeys}. */
export interface RotationOptions {
  /** Users per batch (one UPDATE statement, one transaction each); default 500, at most 10 000. */
  readonly batchSize?: number;
  /** Called once after the start-up check (`done` 0) and after every batch. */
  readonly onProgress?: (progress: RotationProgress) => void;
}

/**
 * Re-wraps every stored data key that is not under the current master key (`keys.current`):
 * each is unwrapped with the key its wrap names (version-1 wraps: whichever configured key opens
 * them) and wrapped again under the current key. Runs in batches of `batchSize` users in user-id
 * order; each batch is one conditional UPDATE (a row changes only while it still holds the bytes
 * read), so it is safe beside running services and beside another rotation, resumable (a rerun
 * picks up the keys still under other ids) and idempotent (nothing left: nothing written).
 * Memory bodies are untouched: the data keys themselves do not change.
 * @throws MissingMasterKeyError before any write when some data key's master key is not in `keys`.
 * @throws Error naming the user when a data key does not open under the key its wrap names (its
 *   `cause` is the DecryptionError); the batches before it stay committed.
 * @throws RangeError when `batchSize` is not an integer in 1–10 000; database errors.
 */
export async function rotateDataKeys(
  db: Database,
  keys: MasterKeyring,
  options: RotationOptions = {},
): Promise<RotationResult> {
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new RangeError(`batchSize must be an integer in 1–10000, got ${batchSize}`);
  }
  const current = keys.current.id;
  const before = await checkMasterKeys(db, keys);
  let total = countNotUnder(before, current);
  let done = 0;
  let rewrapped = 0;
  let after: string | null = null;
  options.onProgress?.({ done, total });
  for (;;) {
    const batch = await listDataKeysNotUnder(db, current, { after, limit: batchSize });
    if (batch.length === 0) {
      break;
    }
    const replacements = batch.map((row) => rewrap(keys, row));
    rewrapped += await replaceWrappedDataKeys(db, replacements);
    done += batch.length;
    total = Math.max(total, done);
    after = batch[batch.length - 1]?.userId ?? after;
    options.onProgress?.({ done, total });
  }
  const remaining = (await countUsersByMasterKeyId(db)).filter((c) => c.masterKeyId !== current);
  return { masterKeyId: current, rewrapped, skipped: done - rewrapped, remaining };
}

/**
 * The replacement of one stored data key: unwrapped with the key its wrap names, wrapped again
 * under the current key.
 * @throws Error naming the user when it does not open (its `cause` is the DecryptionError).
 */
function rewrap(keys: MasterKeyring, row: StoredDataKey): DataKeyReplacement {
  let dataKey: Uint8Array;
  try {
    dataKey = keys.unwrap(row.wrappedDataKey, row.userId);
  } catch (error) {
    throw new Error(
      `user ${row.userId}: its data key does not open (${(error as Error).message}); not re-wrapped`,
      { cause: error },
    );
  }
  return {
    userId: row.userId,
    expected: row.wrappedDataKey,
    wrappedDataKey: keys.wrap(dataKey, row.userId),
  };
}

function countNotUnder(counts: readonly MasterKeyIdCount[], masterKeyId: string): number {
  return counts.reduce((sum, c) => sum + (c.masterKeyId === masterKeyId ? 0 : c.users), 0);
}
