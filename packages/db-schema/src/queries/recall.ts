/**
 * The recall cache's loader: one lean statement that reads a page of the user's
 * live memories in leaf order with only the columns the cache keeps, plus, in the same round trip
 * and snapshot, the leaf indices of the memories deleted since the cache's last check.
 *
 * It runs as a prepared statement straight on the postgres.js client under drizzle, rows as
 * arrays, and streams them to a callback as they arrive, so the caller can decrypt a row while
 * PostgreSQL is still producing the next ones; nothing is buffered per page. Values are converted
 * here (drizzle's postgres-js driver turns postgres.js's timestamp parsers off, and int8 comes as
 * text): integers from their decimal text, the bytes from one hex column per row.
 * @module
 */
import type { Database } from "../client.js";
import type { WriterKind } from "../schema/memories.js";
import { clientOf } from "./_prepared.js";

/** One live memory as {@link readRecallPage} hands it to its callback. */
export interface RecallRow {
  readonly id: string;
  readonly leafIndex: number;
  /** `created_at` in epoch milliseconds (the column has millisecond precision). */
  readonly createdAtMs: number;
  /**
   * The metadata as PostgreSQL's jsonb text (`JSON.parse` it); the string `"{}"` for empty
   * metadata, so a caller can skip parsing it.
   */
  readonly metadataJson: string;
  /** The 32-byte leaf hash. */
  readonly leafHash: Uint8Array;
  /** The sealed body's 12-byte IV. */
  readonly iv: Uint8Array;
  /** The sealed body (version ‖ AES-GCM ciphertext ‖ tag). */
  readonly ciphertext: Uint8Array;
  /** The memory's namespace, or null. */
  readonly namespace: string | null;
  /** The memory this one supersedes, or null. */
  readonly supersedes: string | null;
  /** The later version that superseded this memory (as of the read), or null. */
  readonly supersededBy: string | null;
  /** Who wrote it: null on version-1 leaves. */
  readonly writerKind: WriterKind | null;
  /** The writing API key's id, when written by one. */
  readonly writerKeyId: string | null;
}

/** What {@link readRecallPage} reads. */
export interface RecallPageOptions {
  /** Live memories with a leaf index above this one (-1: from the first leaf). */
  readonly afterLeafIndex: number;
  /** At most this many live memories (1–10 000). */
  readonly limit: number;
  /**
   * Also report the leaf indices of the user's memories deleted at or after this time (compared
   * with `deleted_at`); null reports none.
   */
  readonly deletedSince: Date | null;
}

/** The outcome of one {@link readRecallPage}. */
export interface RecallPage {
  /** Live memories handed to the callback (fewer than `limit`: the log has no more). */
  readonly rows: number;
  /** Leaf index of the last of them; `afterLeafIndex` when there was none. */
  readonly lastLeafIndex: number;
  /** Leaf indices of the memories deleted since `deletedSince`, in no particular order. */
  readonly deletedLeafIndexes: number[];
}

/**
 * Live rows first (an index scan of the (user_id, leaf_index) unique index with LIMIT), then the
 * deletions (the partial `memories_deleted_idx`), marked by a null id. `sealed` is the hex of
 * leaf hash ‖ iv ‖ ciphertext, or null when the IV is not 12 bytes (not a body this service wrote;
 * reported as malformed).
 *
 * Every parameter is read through a one-row subquery (`(select $n)`, an InitPlan) so that the
 * planner's estimates never depend on its values: a custom plan then costs what the generic plan
 * does, and PostgreSQL's plan cache keeps the generic plan from the sixth execution on each
 * connection (PostgreSQL 15 docs, PREPARE, "plan_cache_mode"). With bare parameters each custom
 * plan looked cheaper (a leaf index near the end, a null time), so every warm search was planned
 * afresh: 0.19 ms of planning against 0.03 ms of execution; with the subqueries 0.02 ms. The plan is
 * the same either way (docs/performance.md "Filter-only recall: a generic plan").
 */
const RECALL_PAGE_SQL = `(select id, leaf_index,
    (extract(epoch from created_at) * 1000)::int8 as created_ms,
    metadata::text as metadata,
    case when octet_length(iv) = 12 then encode(leaf_hash || iv || ciphertext, 'hex') end as sealed,
    namespace, supersedes, superseded_by, writer_kind,
    writer_key_id
  from memories
  where user_id = (select $1::text) and leaf_index > (select $2::int8) and deleted_at is null
  order by leaf_index
  limit (select $3::int4))
union all
(select null, leaf_index, null, null, null, null, null, null, null, null
  from memories
  where user_id = (select $1::text) and deleted_at >= (select $4::timestamptz))`;

const LEAF_HASH_BYTES = 32;
const IV_BYTES = 12;

/**
 * Reads one page for the recall cache in ONE prepared statement (one round trip, one snapshot),
 * the user's id (`$1`) in both of its parts: the user's live memories with leaf index above
 * `afterLeafIndex`, ascending, at most `limit`, each handed to `visit` as soon as its row arrives;
 * and the leaf indices of the user's memories deleted since `deletedSince`.
 * `visit` runs synchronously inside the socket handler. The byte arrays it gets are views of one
 * fresh buffer per row, which also holds the ciphertext: copy what you keep. When `visit` throws,
 * the remaining rows are skipped and, once the statement has finished, the first error is
 * rethrown (the connection stays usable).
 * @returns the number of rows visited, the last leaf index visited and the deleted leaf indices.
 * @throws RangeError on a bad `afterLeafIndex` or `limit`; TypeError when `db` is a transaction
 *   (no postgres.js client of its own) or a live row is malformed (no well-formed body); the
 *   PostgreSQL error of the statement; whatever `visit` threw.
 */
export async function readRecallPage(
  db: Database,
  userId: string,
  options: RecallPageOptions,
  visit: (row: RecallRow) => void,
): Promise<RecallPage> {
  const { afterLeafIndex, limit, deletedSince } = options;
  if (!Number.isSafeInteger(afterLeafIndex) || afterLeafIndex < -1) {
    throw new RangeError(`afterLeafIndex must be an integer >= -1, got ${afterLeafIndex}`);
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new RangeError(`limit must be an integer in [1, 10000], got ${limit}`);
  }
  const client = clientOf(db);
  if (!client) {
    throw new TypeError("readRecallPage needs a database handle (not a transaction)");
  }
  const params = [
    userId,
    String(afterLeafIndex),
    String(limit),
    deletedSince === null ? null : deletedSince.toISOString(),
  ];
  let rows = 0;
  let lastLeafIndex = afterLeafIndex;
  const deletedLeafIndexes: number[] = [];
  let failure: { error: unknown } | null = null;
  await client
    .unsafe(RECALL_PAGE_SQL, params, { prepare: true })
    .values()
    .forEach((row: (string | null)[]) => {
      if (failure) {
        return;
      }
      try {
        const leafIndex = integerOf(row[1] ?? null);
        const id = row[0] ?? null;
        if (id === null) {
          deletedLeafIndexes.push(leafIndex);
          return;
        }
        if (leafIndex <= lastLeafIndex) {
          throw new TypeError(`recall rows out of leaf order at leaf ${leafIndex}`);
        }
        const sealed = sealedOf(id, row[4] ?? null);
        const metadataJson = row[3] ?? null;
        if (metadataJson === null) {
          throw new TypeError(`memory ${id}: no metadata`);
        }
        rows++;
        lastLeafIndex = leafIndex;
        visit({
          id,
          leafIndex,
          createdAtMs: integerOf(row[2] ?? null),
          metadataJson,
          leafHash: sealed.subarray(0, LEAF_HASH_BYTES),
          iv: sealed.subarray(LEAF_HASH_BYTES, LEAF_HASH_BYTES + IV_BYTES),
          ciphertext: sealed.subarray(LEAF_HASH_BYTES + IV_BYTES),
          namespace: row[5] ?? null,
          supersedes: row[6] ?? null,
          supersededBy: row[7] ?? null,
          writerKind: (row[8] ?? null) as WriterKind | null,
          writerKeyId: row[9] ?? null,
        });
      } catch (error) {
        failure = { error };
      }
    });
  if (failure) {
    throw (failure as { error: unknown }).error;
  }
  return { rows, lastLeafIndex, deletedLeafIndexes };
}

/** An int8 column as PostgreSQL's decimal text. */
function integerOf(text: string | null): number {
  const value = text === null ? Number.NaN : Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new TypeError("recall row: malformed integer column");
  }
  return value;
}

/** leaf hash ‖ iv ‖ ciphertext decoded from the hex column, in a fresh buffer. */
function sealedOf(memoryId: string, hex: string | null): Buffer {
  if (hex === null) {
    throw new TypeError(`memory ${memoryId} has no well-formed body although it is not deleted`);
  }
  const sealed = Buffer.from(hex, "hex");
  if (2 * sealed.length !== hex.length || sealed.length < LEAF_HASH_BYTES + IV_BYTES) {
    throw new TypeError(`memory ${memoryId}: malformed sealed body column`);
  }
  return sealed;
}
