/**
 * The checkpoint log's storage (docs/protocol.md §13.5 "The checkpoint log"): appending the user
 * checkpoints not yet logged, in `log_seq` order after a cursor (the last logged checkpoint's
 * `log_seq`), under one transaction-scoped advisory lock (one appender at a time, whichever
 * process), and reading heads, nodes and entries back for tiles.
 * @module
 */
import {
  CompactRange,
  type Hash,
  hashLeaf,
  MissingNodeError,
  type NodeHashSource,
  type NodeId,
  rangeNodes,
  type StoredNode,
} from "@verifiable-memory/merkle-log";
import { and, asc, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { Database, Executor } from "../client.js";
import {
  type CheckpointLogHead,
  checkpointLogEntries,
  checkpointLogHeads,
  checkpointLogNodes,
} from "../schema/checkpoint-log.js";
import { bytesOf, rawQuery } from "./_prepared.js";

/** The advisory lock key of the checkpoint-log appender ("ckplog" in ASCII: six bytes, an exact JavaScript integer). */
const APPEND_LOCK = 0x636b_706c_6f67;

/** An anchored user checkpoint not yet in the checkpoint log. */
export interface UnloggedCheckpoint {
  readonly checkpointId: string;
  /** The owner's wallet key, base58. */
  readonly owner: string;
  readonly treeSize: number;
  readonly root: Uint8Array;
}

/** What {@link appendCheckpointLog} needs from the caller (the app holds the log key). */
export interface CheckpointLogAppend {
  /** The entry (unsigned note text, UTF-8) recording one user checkpoint. */
  entryOf(checkpoint: UnloggedCheckpoint): Uint8Array;
  /** The signed note of the checkpoint log at `size` entries with root `root`. */
  sign(size: number, root: Hash): string;
  /** Most entries appended by one call (the rest wait for the next). */
  readonly maxEntries: number;
}

/** The outcome of one append: the new head, or null when nothing was waiting. */
export type CheckpointLogAppendResult = {
  readonly head: CheckpointLogHead;
  readonly appended: number;
} | null;

/** The cursor: the `log_seq` of the checkpoint at the log's last entry (none while it is empty). */
const CURSOR_SQL = `select c.log_seq from checkpoint_log_entries e
  join anchored_checkpoints c on c.id = e.checkpoint_id
  order by e.leaf_index desc
  limit 1`;

const UNLOGGED_SQL = `select c.id, u.owner_pubkey, c.tree_size, c.root
  from anchored_checkpoints c
  join users u on u.id = c.user_id
  where c.log_seq > $1
  order by c.log_seq
  limit $2`;

/**
 * Appends the anchored user checkpoints not yet logged (those whose `log_seq` is above the
 * cursor, the `log_seq` of the last entry's checkpoint; lowest first, at most `maxEntries`) to the
 * checkpoint log and records its new head, signed by `sign`, in ONE transaction under an advisory
 * lock: entries, completed perfect subtrees and the head commit together or not at all. Each
 * append reads only the new checkpoints (an index range scan on `log_seq`).
 *
 * The cursor never skips a checkpoint: `log_seq` values are drawn at insert, so a transaction may
 * commit a smaller one after a larger one became visible. The append therefore first locks
 * `anchored_checkpoints` in SHARE mode, which waits for every transaction that inserted an
 * anchored checkpoint and has not ended, and holds new inserts back until the append commits.
 * Every `log_seq` drawn before the lock belongs to a transaction that has ended (committed, so
 * visible, or rolled back), and every one drawn after it is larger than the cursor.
 * @returns the new head and the number of entries appended, or null when none was waiting.
 * @throws the database's errors; whatever `entryOf` or `sign` throws (nothing is written).
 * Source: docs/protocol.md §13.5 "The checkpoint log".
 */
export async function appendCheckpointLog(
  db: Database,
  append: CheckpointLogAppend,
): Promise<CheckpointLogAppendResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${APPEND_LOCK})`);
    await tx.execute(sql`lock table anchored_checkpoints in share mode`);
    const [last] = await rawQuery<{ log_seq: string }>(tx, CURSOR_SQL, []);
    const rows = await rawQuery<{
      id: string;
      owner_pubkey: string;
      tree_size: string;
      root: Uint8Array;
    }>(tx, UNLOGGED_SQL, [last?.log_seq ?? 0, append.maxEntries]);
    if (rows.length === 0) {
      return null;
    }
    const previous = await latestCheckpointLogHead(tx);
    const size = previous?.treeSize ?? 0;
    const source = checkpointLogNodeSource(tx);
    const range = CompactRange.fromState(size, [...(await source.getNodes(rangeNodes(0, size)))]);
    const nodes: StoredNode[] = [];
    const entries = rows.map((row, i) => {
      const entry = append.entryOf({
        checkpointId: row.id,
        owner: row.owner_pubkey,
        treeSize: Number(row.tree_size),
        root: bytesOf(row.root),
      });
      nodes.push(...range.append(hashLeaf(entry)));
      return { leafIndex: size + i, checkpointId: row.id, entry };
    });
    await tx.insert(checkpointLogEntries).values(entries);
    for (let i = 0; i < nodes.length; i += 5000) {
      await tx
        .insert(checkpointLogNodes)
        .values(
          nodes.slice(i, i + 5000).map((n) => ({ level: n.level, idx: n.index, hash: n.hash })),
        );
    }
    const root = range.root();
    const [head] = await tx
      .insert(checkpointLogHeads)
      .values({ treeSize: range.size, root, note: append.sign(range.size, root) })
      .returning();
    return { head: head as CheckpointLogHead, appended: entries.length };
  });
}

/** The checkpoint log's latest head (largest size), or null before the first append. */
export async function latestCheckpointLogHead(db: Executor): Promise<CheckpointLogHead | null> {
  const [head] = await db
    .select()
    .from(checkpointLogHeads)
    .orderBy(desc(checkpointLogHeads.treeSize))
    .limit(1);
  return head ?? null;
}

/**
 * The root of the checkpoint log's first `size` entries, from the stored perfect subtrees (one
 * query), to compare with a root published at that size.
 * @returns the RFC 9162 root (the empty tree's for 0).
 * @throws RangeError when `size` is negative or above the stored log; MissingNodeError when a
 *   subtree is missing.
 */
export async function checkpointLogRootAt(db: Executor, size: number): Promise<Hash> {
  const head = await latestCheckpointLogHead(db);
  if (!Number.isSafeInteger(size) || size < 0 || size > (head?.treeSize ?? 0)) {
    throw new RangeError(`size must be in 0..${head?.treeSize ?? 0}, got ${size}`);
  }
  const nodes = await checkpointLogNodeSource(db).getNodes(rangeNodes(0, size));
  return CompactRange.fromState(size, [...nodes]).root();
}

/** The confirmed transaction that anchored a checkpoint-log head on chain. */
export interface CheckpointLogAnchor {
  /** Transaction signature, base58. */
  readonly signature: string;
  readonly slot: number;
  /** The checkpoint log account's nonce after it. */
  readonly nonce: number;
  readonly anchoredAt: Date;
}

/**
 * Records the anchor of the head at `treeSize` (docs/protocol.md §13.5 "The checkpoint log").
 * @returns false when no head has that size.
 */
export async function recordCheckpointLogAnchor(
  db: Executor,
  treeSize: number,
  anchor: CheckpointLogAnchor,
): Promise<boolean> {
  const rows = await db
    .update(checkpointLogHeads)
    .set({
      anchorSignature: anchor.signature,
      anchorSlot: anchor.slot,
      anchorNonce: anchor.nonce,
      anchoredAt: anchor.anchoredAt,
    })
    .where(eq(checkpointLogHeads.treeSize, treeSize))
    .returning({ treeSize: checkpointLogHeads.treeSize });
  return rows.length > 0;
}

/**
 * A NodeHashSource over the checkpoint log's stored perfect subtrees (one query per getNodes).
 * @throws MissingNodeError from getNodes for the first id not stored.
 */
export function checkpointLogNodeSource(db: Executor): NodeHashSource {
  return {
    async getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]> {
      if (ids.length === 0) {
        return [];
      }
      const rows = await rawQuery<{ ord: number; hash: Uint8Array }>(
        db,
        `select u.ord, n.hash from unnest($1::int2[], $2::int8[]) with ordinality as u(level, idx, ord)
          join checkpoint_log_nodes n on n.level = u.level and n.idx = u.idx`,
        [`{${ids.map((id) => id.level).join(",")}}`, `{${ids.map((id) => id.index).join(",")}}`],
      );
      const found: (Hash | undefined)[] = new Array(ids.length);
      for (const row of rows) {
        found[row.ord - 1] = bytesOf(row.hash);
      }
      return ids.map((id, i) => {
        const hash = found[i];
        if (!hash) {
          throw new MissingNodeError(id);
        }
        return hash;
      });
    },
  };
}

/** The entries [from, from + count) of the checkpoint log, in order (fewer past its end). */
export async function checkpointLogEntriesRange(
  db: Executor,
  from: number,
  count: number,
): Promise<Uint8Array[]> {
  const rows = await db
    .select({ entry: checkpointLogEntries.entry })
    .from(checkpointLogEntries)
    .where(
      and(
        gte(checkpointLogEntries.leafIndex, from),
        lt(checkpointLogEntries.leafIndex, from + count),
      ),
    )
    .orderBy(asc(checkpointLogEntries.leafIndex));
  return rows.map((r) => r.entry);
}

/** The checkpoint-log entry recording the anchored checkpoint `checkpointId`, or null. */
export async function checkpointLogEntryOf(
  db: Executor,
  checkpointId: string,
): Promise<{ leafIndex: number; entry: Uint8Array } | null> {
  const [row] = await db
    .select({ leafIndex: checkpointLogEntries.leafIndex, entry: checkpointLogEntries.entry })
    .from(checkpointLogEntries)
    .where(eq(checkpointLogEntries.checkpointId, checkpointId));
  return row ?? null;
}
