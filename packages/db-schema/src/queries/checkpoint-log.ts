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

/** A user checkpoint not yet in the checkpoint log. */
export interface UnloggedCheckpoint {
  /** The anchored checkpoint it is; null for a sealed checkpoint the owner's account lacks yet. */
  readonly checkpointId: string | null;
  readonly userId: string;
  /** The owner's wallet key, base58. */
  readonly owner: string;
  readonly treeSize: number;
  readonly root: Uint8Array;
}

/** A sealed user tree (size, root) whose per-user commit waits: logged without its own anchor. */
export type SealedCheckpoint = Omit<UnloggedCheckpoint, "checkpointId">;

/** What {@link appendCheckpointLog} needs from the caller (the app holds the log key). */
export interface CheckpointLogAppend {
  /** The entry (unsigned note text, UTF-8) recording one user checkpoint. */
  entryOf(checkpoint: UnloggedCheckpoint): Uint8Array;
  /** The signed user checkpoint (signed note) of an entry's text. */
  noteOf(entry: Uint8Array): string;
  /** The signed note of the checkpoint log at `size` entries with root `root`. */
  sign(size: number, root: Hash): string;
  /** Most entries appended by one call (the rest wait for the next). */
  readonly maxEntries: number;
  /**
   * Sealed user trees to log as well, each only when its size is above every size already
   * logged for its user (default none).
   */
  readonly sealed?: readonly SealedCheckpoint[];
}

/** The outcome of one append: the new head, or null when nothing was waiting. */
export type CheckpointLogAppendResult = {
  readonly head: CheckpointLogHead;
  readonly appended: number;
} | null;

/**
 * The cursor of a log whose latest head has none (appended before it was kept): the `log_seq` of
 * the anchored checkpoint at the log's last entry that has one.
 */
const CURSOR_SQL = `select c.log_seq from checkpoint_log_entries e
  join anchored_checkpoints c on c.id = e.checkpoint_id
  order by e.leaf_index desc
  limit 1`;

// Anchored checkpoints after the cursor, each with whether its (owner, size) is logged already (a
// sealed tree may have been logged before the owner's account held it).
const AFTER_CURSOR_SQL = `select c.id, c.user_id, u.owner_pubkey, c.tree_size, c.root, c.log_seq,
    exists (select 1 from checkpoint_log_entries e
      where e.user_id = c.user_id and e.tree_size = c.tree_size) as logged
  from anchored_checkpoints c
  join users u on u.id = c.user_id
  where c.log_seq > $1
  order by c.log_seq
  limit $2`;

const SET_CURSOR_SQL = `update checkpoint_log_heads set log_seq_cursor = $1 where tree_size = $2`;

const LOGGED_SIZES_SQL = `select user_id, max(tree_size) as size from checkpoint_log_entries
  where user_id in (select jsonb_array_elements_text($1::jsonb)) group by user_id`;

const UNSIGNED_SQL = `select leaf_index, entry from checkpoint_log_entries where note is null
  order by leaf_index limit $1`;

const SET_NOTES_SQL = `update checkpoint_log_entries e set note = u.note
  from jsonb_to_recordset($1::jsonb) as u(leaf_index bigint, note text)
  where e.leaf_index = u.leaf_index`;

/**
 * The candidates of one append: anchored checkpoints first, then sealed ones above every logged
 * size; and the cursor after them (the highest `log_seq` read, `cursor` when none).
 */
async function unlogged(
  tx: Executor,
  append: CheckpointLogAppend,
  cursor: number,
): Promise<{ found: UnloggedCheckpoint[]; cursor: number }> {
  const rows = await rawQuery<{
    id: string;
    user_id: string;
    owner_pubkey: string;
    tree_size: string;
    root: Uint8Array;
    log_seq: string;
    logged: boolean;
  }>(tx, AFTER_CURSOR_SQL, [cursor, append.maxEntries]);
  const next = rows.length > 0 ? Number(rows[rows.length - 1]?.log_seq) : cursor;
  const found: UnloggedCheckpoint[] = rows
    .filter((row) => !row.logged)
    .map((row) => ({
      checkpointId: row.id,
      userId: row.user_id,
      owner: row.owner_pubkey,
      treeSize: Number(row.tree_size),
      root: bytesOf(row.root),
    }));
  const sealed = append.sealed ?? [];
  if (sealed.length === 0 || found.length >= append.maxEntries) {
    return { found, cursor: next };
  }
  const logged = new Map<string, number>();
  const sizes = await rawQuery<{ user_id: string; size: string }>(tx, LOGGED_SIZES_SQL, [
    JSON.stringify(sealed.map((c) => c.userId)),
  ]);
  for (const row of sizes) {
    logged.set(row.user_id, Number(row.size));
  }
  for (const c of found) {
    logged.set(c.userId, Math.max(logged.get(c.userId) ?? 0, c.treeSize));
  }
  for (const c of sealed) {
    if (found.length < append.maxEntries && c.treeSize > (logged.get(c.userId) ?? 0)) {
      found.push({ ...c, checkpointId: null });
      logged.set(c.userId, c.treeSize);
    }
  }
  return { found, cursor: next };
}

/** Signs entries appended before signed notes were stored (at most `maxEntries` per call). */
async function signStoredEntries(tx: Executor, append: CheckpointLogAppend): Promise<void> {
  const rows = await rawQuery<{ leaf_index: string; entry: Uint8Array }>(tx, UNSIGNED_SQL, [
    append.maxEntries,
  ]);
  if (rows.length > 0) {
    const notes = rows.map((r) => ({
      leaf_index: Number(r.leaf_index),
      note: append.noteOf(bytesOf(r.entry)),
    }));
    await rawQuery(tx, SET_NOTES_SQL, [JSON.stringify(notes)]);
  }
}

/** The cursor of a log whose latest head keeps none: see {@link CURSOR_SQL} (0 when empty). */
async function legacyCursor(tx: Executor): Promise<number> {
  const [last] = await rawQuery<{ log_seq: string }>(tx, CURSOR_SQL, []);
  return Number(last?.log_seq ?? 0);
}

/**
 * Appends to the checkpoint log, in ONE transaction under an advisory lock, the anchored user
 * checkpoints not yet logged (those whose `log_seq` is above the cursor and whose (owner, size) no
 * entry holds; lowest first), then the
 * `sealed` checkpoints above every size logged for their user, at most `maxEntries` in all; stores
 * each entry with its signed note (`noteOf`) and records the log's new head, signed by `sign`.
 * Entries, completed perfect subtrees and the head commit together or not at all. Entries stored
 * without a note (before notes were kept) get theirs in the same transaction. The cursor is the
 * highest `log_seq` an append has read, kept on the latest head (`log_seq_cursor`, moved on in
 * place when every checkpoint read was logged already as a sealed tree), so each append reads only
 * the checkpoints anchored since the last one (an index range scan on `log_seq`).
 *
 * The cursor never skips a checkpoint: `log_seq` values are drawn at insert, so a transaction may
 * commit a smaller one after a larger one became visible. The append therefore first locks
 * `anchored_checkpoints` in SHARE mode, which waits for every transaction that inserted an
 * anchored checkpoint and has not ended, and holds new inserts back until the append commits.
 * Every `log_seq` drawn before the lock belongs to a transaction that has ended (committed, so
 * visible, or rolled back), and every one drawn after it is larger than the cursor.
 * @returns the new head and the number of entries appended, or null when none was waiting.
 * @throws the database's errors; whatever `entryOf`, `noteOf` or `sign` throws (nothing is written).
 * Source: docs/protocol.md §13.5 "The checkpoint log".
 */
export async function appendCheckpointLog(
  db: Database,
  append: CheckpointLogAppend,
): Promise<CheckpointLogAppendResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${APPEND_LOCK})`);
    await tx.execute(sql`lock table anchored_checkpoints in share mode`);
    await signStoredEntries(tx, append);
    const previous = await latestCheckpointLogHead(tx);
    const cursor = previous?.logSeqCursor ?? (await legacyCursor(tx));
    const { found: candidates, cursor: next } = await unlogged(tx, append, cursor);
    if (candidates.length === 0) {
      if (previous && next > cursor) {
        await rawQuery(tx, SET_CURSOR_SQL, [next, previous.treeSize]);
      }
      return null;
    }
    const size = previous?.treeSize ?? 0;
    const source = checkpointLogNodeSource(tx);
    const range = CompactRange.fromState(size, [...(await source.getNodes(rangeNodes(0, size)))]);
    const nodes: StoredNode[] = [];
    const entries = candidates.map((c, i) => {
      const entry = append.entryOf(c);
      nodes.push(...range.append(hashLeaf(entry)));
      return {
        leafIndex: size + i,
        checkpointId: c.checkpointId,
        userId: c.userId,
        treeSize: c.treeSize,
        entry,
        note: append.noteOf(entry),
      };
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
      .values({
        treeSize: range.size,
        root,
        note: append.sign(range.size, root),
        logSeqCursor: next,
      })
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
  /** The checkpoint log account (PDA) written, base58. */
  readonly account: string;
}

// Marks the memories the entries newly covered by the anchor of the head of $1 entries cover:
// entries from the previous recorded anchor's size up to $1, per user from the size its earlier
// entries already covered (so each memory is touched once).
const MARK_COVERED_SQL = `with prev as (select coalesce(max(tree_size), 0) as size
    from checkpoint_log_heads where anchor_signature is not null and tree_size < $1),
  fresh as (select e.user_id, max(e.tree_size) as size from checkpoint_log_entries e, prev
    where e.leaf_index >= prev.size and e.leaf_index < $1 group by e.user_id),
  span as (select f.user_id, f.size, coalesce((select max(o.tree_size)
      from checkpoint_log_entries o, prev where o.user_id = f.user_id and o.leaf_index < prev.size), 0) as done
    from fresh f)
  update memories m set log_anchored = true from span
  where m.user_id = span.user_id and m.leaf_index >= span.done and m.leaf_index < span.size
    and m.log_anchored = false`;

/**
 * Records the anchor of the head at `treeSize` and, in the same transaction, marks anchored
 * every memory a user checkpoint among the newly covered entries covers, as `logAnchored`
 * (docs/protocol.md §13.5 "The checkpoint log": a memory counts as anchored through either path).
 * @returns false (nothing written) when no head has that size.
 * @throws the database's errors.
 */
export async function recordCheckpointLogAnchor(
  db: Database,
  treeSize: number,
  anchor: CheckpointLogAnchor,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(checkpointLogHeads)
      .set({
        anchorSignature: anchor.signature,
        anchorSlot: anchor.slot,
        anchorNonce: anchor.nonce,
        anchoredAt: anchor.anchoredAt,
        anchorAccount: anchor.account,
      })
      .where(eq(checkpointLogHeads.treeSize, treeSize))
      .returning({ treeSize: checkpointLogHeads.treeSize });
    if (rows.length === 0) {
      return false;
    }
    await rawQuery(tx, MARK_COVERED_SQL, [treeSize]);
    return true;
  });
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
