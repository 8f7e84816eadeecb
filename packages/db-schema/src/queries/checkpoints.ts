/**
 * Anchored checkpoint queries (docs/protocol.md §6: proofs are cut at the latest anchored checkpoint;
 * `GET /log` reports it), and the proof route's whole read in one statement (memory row, latest
 * checkpoint, inclusion-path nodes). The hot reads are prepared statements on the postgres.js
 * client (tree.ts rawQuery), not drizzle-built queries.
 * @module
 */
import type { Hash, NodeHashSource } from "@verifiable-memory/merkle-log";
import { and, eq, getTableColumns } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type AnchoredCheckpoint, anchoredCheckpoints } from "../schema/anchored-checkpoints.js";
import type { Memory, WriterKind } from "../schema/memories.js";
import {
  decodeNumberCursor,
  encodeNumberCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "./_pagination.js";
import { bytesOf, rawQuery } from "./_prepared.js";
import { nodeSource, prefetchedNodeSource } from "./tree.js";

/** The columns of {@link AnchoredCheckpoint}: every column but `log_seq`. */
const { logSeq: _logSeq, ...checkpointFields } = getTableColumns(anchoredCheckpoints);

/** Input of {@link insertAnchoredCheckpoint}. */
export interface NewAnchoredCheckpoint {
  readonly userId: string;
  readonly treeSize: number;
  readonly root: Hash;
  /** The commitment account's nonce after this commit. */
  readonly nonce: number;
  /** The confirmed transaction's signature, base58. */
  readonly signature: string;
  readonly slot?: number | null;
  readonly anchoredAt?: Date;
}

/**
 * Records a confirmed anchoring. Idempotent per (user, tree size): when that size is already
 * recorded, the existing row is returned unchanged.
 * @returns the stored checkpoint for (userId, treeSize).
 */
export async function insertAnchoredCheckpoint(
  db: Executor,
  input: NewAnchoredCheckpoint,
): Promise<AnchoredCheckpoint> {
  const inserted = await db
    .insert(anchoredCheckpoints)
    .values({
      userId: input.userId,
      treeSize: input.treeSize,
      root: input.root,
      nonce: input.nonce,
      signature: input.signature,
      slot: input.slot ?? null,
      ...(input.anchoredAt ? { anchoredAt: input.anchoredAt } : {}),
    })
    .onConflictDoNothing({ target: [anchoredCheckpoints.userId, anchoredCheckpoints.treeSize] })
    .returning(checkpointFields);
  const row = inserted[0] ?? (await getAnchoredCheckpointBySize(db, input.userId, input.treeSize));
  if (!row) {
    throw new Error(`checkpoint (${input.userId}, ${input.treeSize}) vanished after a conflict`);
  }
  return row;
}

/** The columns of a checkpoint as {@link rawQuery} reads them (`anchored_ms`: epoch ms). */
const CHECKPOINT_COLUMNS = `id, user_id, tree_size, root, nonce, signature, slot,
  (extract(epoch from anchored_at) * 1000)::float8 as anchored_ms`;

/** A checkpoint row as read by {@link rawQuery} with {@link CHECKPOINT_COLUMNS}. */
interface RawCheckpoint extends Record<string, unknown> {
  id: string;
  user_id: string;
  tree_size: string;
  root: Uint8Array;
  nonce: string;
  signature: string;
  slot: string | null;
  anchored_ms: number;
}

function checkpointOf(row: RawCheckpoint): AnchoredCheckpoint {
  return {
    id: row.id,
    userId: row.user_id,
    treeSize: Number(row.tree_size),
    root: bytesOf(row.root),
    nonce: Number(row.nonce),
    signature: row.signature,
    slot: row.slot === null ? null : Number(row.slot),
    anchoredAt: new Date(row.anchored_ms),
  };
}

const LATEST_CHECKPOINT_SQL = `select ${CHECKPOINT_COLUMNS} from anchored_checkpoints
  where user_id = $1 order by tree_size desc limit 1`;

/**
 * The user's checkpoint with the largest tree size, or null when never anchored. One prepared
 * statement on the postgres.js client (an index scan of the (user_id, tree_size) unique index).
 */
export async function latestAnchoredCheckpoint(
  db: Executor,
  userId: string,
): Promise<AnchoredCheckpoint | null> {
  const rows = await rawQuery<RawCheckpoint>(db, LATEST_CHECKPOINT_SQL, [userId]);
  return rows[0] ? checkpointOf(rows[0]) : null;
}

/** What {@link getMemoryAtLatestCheckpoint} reads in one statement. */
export interface MemoryAtCheckpoint {
  /** The live memory row (as `getMemory` returns it). */
  readonly memory: Memory;
  /** The user's latest anchored checkpoint, or null when never anchored. */
  readonly checkpoint: AnchoredCheckpoint | null;
  /**
   * The user's node store, the memory's inclusion path at `checkpoint.treeSize` already read
   * (served without a query); any other read, or a node the store lacks, goes to the database
   * as {@link nodeSource} (MissingNodeError for an absent node).
   */
  readonly nodes: NodeHashSource;
}

/**
 * The memory row, the latest checkpoint and the memory's inclusion-path nodes, in ONE statement
 * (one snapshot). For leaf m < checkpoint size n, with fork height f = bitLength(m xor n) - 1
 * (the highest ancestor of m still perfect at size n is at level f; merkle-log proof.ts
 * pathPlan), RFC 9162 §2.1.3 PATH(m, D[n]) reads exactly these stored nodes:
 * - below the fork, the sibling of each ancestor: (h, (m >> h) xor 1) for h < f, i.e.
 *   (m xor n) >> h > 1;
 * - the perfect subtrees covering [0, n) other than the fork's own level: (h, (n >> h) - 1) for
 *   each set bit h of n with (m xor n) >> h <> 1 (those below f fold into the right-border
 *   ephemeral node, those above f are the left siblings).
 * The nodes come back as two aggregates in the same order: "level:idx" list and the concatenated
 * hashes. `$1` user id, `$2` memory id.
 */
const MEMORY_AT_CHECKPOINT_SQL = `with m as (
    select id, user_id, leaf_index, ciphertext, iv, leaf_hash, metadata, anchored, log_anchored,
      leaf_version, namespace, writer_kind, writer_key_id, supersedes, superseded_by,
      (extract(epoch from created_at) * 1000)::float8 as created_ms,
      (extract(epoch from deleted_at) * 1000)::float8 as deleted_ms
    from memories where user_id = $1 and id = $2 and deleted_at is null
  ), c as (
    select ${CHECKPOINT_COLUMNS} from anchored_checkpoints
    where user_id = $1 order by tree_size desc limit 1
  ), levels as (
    select h, m.leaf_index as i, c.tree_size as n
    from m, c, generate_series(0, 62) as h
    where m.leaf_index < c.tree_size
  ), want as (
    select h::int2 as level, (i >> h) # 1 as idx from levels where (i # n) >> h > 1
    union all
    select h::int2, (n >> h) - 1 from levels where (n >> h) & 1 = 1 and (i # n) >> h <> 1
  )
  select m.*, c.id as c_id, c.user_id as c_user_id, c.tree_size as c_tree_size, c.root as c_root,
    c.nonce as c_nonce, c.signature as c_signature, c.slot as c_slot,
    c.anchored_ms as c_anchored_ms, p.node_ids, p.node_hashes
  from m left join c on true
  cross join lateral (
    select string_agg(n.level || ':' || n.idx, ',' order by n.level, n.idx) as node_ids,
      string_agg(n.hash, ''::bytea order by n.level, n.idx) as node_hashes
    from want w join merkle_nodes n on n.user_id = $1 and n.level = w.level and n.idx = w.idx
  ) p`;

/** A row of {@link MEMORY_AT_CHECKPOINT_SQL}. */
interface RawMemoryAtCheckpoint extends Record<string, unknown> {
  id: string;
  user_id: string;
  leaf_index: string;
  ciphertext: Uint8Array | null;
  iv: Uint8Array | null;
  leaf_hash: Uint8Array;
  metadata: Record<string, unknown>;
  anchored: boolean;
  log_anchored: boolean;
  leaf_version: number;
  namespace: string | null;
  writer_kind: WriterKind | null;
  writer_key_id: string | null;
  supersedes: string | null;
  superseded_by: string | null;
  created_ms: number;
  deleted_ms: number | null;
  c_id: string | null;
  c_user_id: string;
  c_tree_size: string;
  c_root: Uint8Array;
  c_nonce: string;
  c_signature: string;
  c_slot: string | null;
  c_anchored_ms: number;
  node_ids: string | null;
  node_hashes: Uint8Array | null;
}

/**
 * The user's live memory `memoryId` with the user's latest anchored checkpoint and, when the
 * checkpoint covers the memory's leaf, the hashes of its inclusion path at the checkpoint's size:
 * one statement, one round trip (the proof route's whole read). Scoped by `userId` in the SQL.
 * @returns null when the memory is unknown, deleted or another user's; otherwise
 *   `{ memory, checkpoint, nodes }` (see {@link MemoryAtCheckpoint}).
 */
export async function getMemoryAtLatestCheckpoint(
  db: Executor,
  userId: string,
  memoryId: string,
): Promise<MemoryAtCheckpoint | null> {
  const rows = await rawQuery<RawMemoryAtCheckpoint>(db, MEMORY_AT_CHECKPOINT_SQL, [
    userId,
    memoryId,
  ]);
  const row = rows[0];
  if (!row) {
    return null;
  }
  const memory: Memory = {
    id: row.id,
    userId: row.user_id,
    leafIndex: Number(row.leaf_index),
    ciphertext: row.ciphertext === null ? null : bytesOf(row.ciphertext),
    iv: row.iv === null ? null : bytesOf(row.iv),
    leafHash: bytesOf(row.leaf_hash),
    metadata: row.metadata,
    createdAt: new Date(row.created_ms),
    anchored: row.anchored,
    logAnchored: row.log_anchored,
    deletedAt: row.deleted_ms === null ? null : new Date(row.deleted_ms),
    leafVersion: row.leaf_version as 1 | 2,
    namespace: row.namespace,
    writerKind: row.writer_kind,
    writerKeyId: row.writer_key_id,
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
  };
  const checkpoint =
    row.c_id === null
      ? null
      : checkpointOf({
          id: row.c_id,
          user_id: row.c_user_id,
          tree_size: row.c_tree_size,
          root: row.c_root,
          nonce: row.c_nonce,
          signature: row.c_signature,
          slot: row.c_slot,
          anchored_ms: row.c_anchored_ms,
        });
  const prefetched = new Map<string, Hash>();
  if (row.node_ids !== null && row.node_hashes !== null) {
    const hashes = bytesOf(row.node_hashes);
    row.node_ids.split(",").forEach((key, i) => {
      prefetched.set(key, hashes.subarray(i * 32, (i + 1) * 32));
    });
  }
  return {
    memory,
    checkpoint,
    nodes: prefetchedNodeSource(prefetched, nodeSource(db, userId)),
  };
}

/** The user's checkpoint at exactly `treeSize`, or null. */
export async function getAnchoredCheckpointBySize(
  db: Executor,
  userId: string,
  treeSize: number,
): Promise<AnchoredCheckpoint | null> {
  const rows = await db
    .select(checkpointFields)
    .from(anchoredCheckpoints)
    .where(and(eq(anchoredCheckpoints.userId, userId), eq(anchoredCheckpoints.treeSize, treeSize)))
    .limit(1);
  return rows[0] ?? null;
}

const CHECKPOINT_PAGE_SQL = `select ${CHECKPOINT_COLUMNS} from anchored_checkpoints
  where user_id = $1 and tree_size < $2 order by tree_size desc limit $3`;

/**
 * One page of the user's anchored checkpoints, largest tree size (newest) first, `limit` per
 * page (default 50); the cursor is the last tree size of the previous page (`GET
 * /log/checkpoints`, docs/protocol.md §6.4). An index range scan of (user_id, tree_size).
 * @throws RangeError on a bad `limit`; InvalidCursorError on a cursor of another list.
 */
export async function listAnchoredCheckpoints(
  db: Executor,
  userId: string,
  options: PageOptions = {},
): Promise<Page<AnchoredCheckpoint>> {
  const limit = pageLimit(options.limit);
  const before = options.cursor
    ? decodeNumberCursor("checkpoints", options.cursor)
    : Number.MAX_SAFE_INTEGER;
  const rows = await rawQuery<RawCheckpoint>(db, CHECKPOINT_PAGE_SQL, [userId, before, limit + 1]);
  return toPage(rows.map(checkpointOf), limit, (last) =>
    encodeNumberCursor("checkpoints", last.treeSize),
  );
}
