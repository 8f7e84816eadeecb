/**
 * A memory's leaf (docs/protocol.md §5.1 "Leaf data"), hashed as RFC 9162 §2.1.1
 * SHA-256(0x00 ‖ RFC 8785 canonical UTF-8 JSON). New memories are written as version 2
 * `{ v: 2, memoryId, owner, createdAt, metadata, contentHash, namespace, writtenBy, supersedes }`;
 * version-1 leaves (`{ v: 1, memoryId, owner, createdAt, metadata, contentHash }`) written before
 * keep being recomputed as they were. The encoding itself lives in `@verifiable-memory/verifier`, so the
 * service and the auditor's CLI hash the very same bytes.
 * @module
 */
import type { Hash } from "@verifiable-memory/merkle-log";
import {
  contentHashOf,
  type LeafData,
  type LeafWriter,
  leafHashOf,
} from "@verifiable-memory/verifier";
import type { MemoryBody } from "./memory-body.js";

/** The clear fields of a memory that its leaf commits to, beside the body. */
export interface LeafFields {
  readonly memoryId: string;
  /** The owner's wallet public key, base58. */
  readonly owner: string;
  readonly createdAt: Date;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The fields a version-2 leaf adds. */
export interface LeafFieldsV2 extends LeafFields {
  readonly namespace: string | null;
  readonly writtenBy: LeafWriter;
  readonly supersedes: string | null;
}

/**
 * The leaf data object and its leaf hash for a memory: version 2 when `fields` carries the
 * version-2 fields (`writtenBy`), version 1 otherwise.
 * @returns `{ leafData, leafHash }` (leafHash 32 bytes).
 * @throws TypeError when the metadata cannot be canonicalised.
 */
export function memoryLeaf(
  fields: LeafFields | LeafFieldsV2,
  body: MemoryBody,
): { leafData: LeafData; leafHash: Hash } {
  const common = {
    memoryId: fields.memoryId,
    owner: fields.owner,
    createdAt: fields.createdAt.toISOString(),
    metadata: fields.metadata,
    contentHash: contentHashOf(body.salt, body.content),
  };
  const leafData: LeafData =
    "writtenBy" in fields
      ? {
          v: 2,
          ...common,
          namespace: fields.namespace,
          writtenBy: fields.writtenBy,
          supersedes: fields.supersedes,
        }
      : { v: 1, ...common };
  return { leafData, leafHash: leafHashOf(leafData) };
}

/** The stored columns of a memory row that name its leaf version and version-2 fields. */
export interface StoredLeafColumns {
  readonly id: string;
  readonly createdAt: Date;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly leafVersion: number;
  readonly namespace: string | null;
  readonly writerKind: "session" | "api_key" | null;
  readonly writerKeyId: string | null;
  readonly supersedes: string | null;
}

/**
 * The leaf fields of a stored memory row, in the version it was written with.
 * @throws Error when a version-2 row lacks its writer (a damaged row).
 */
export function storedLeafFields(row: StoredLeafColumns, owner: string): LeafFields | LeafFieldsV2 {
  const fields = { memoryId: row.id, owner, createdAt: row.createdAt, metadata: row.metadata };
  if (row.leafVersion === 1) {
    return fields;
  }
  const writtenBy = writerOf(row);
  if (writtenBy === null) {
    throw new Error(`memory ${row.id}: a version-2 leaf without its writer`);
  }
  return { ...fields, namespace: row.namespace, writtenBy, supersedes: row.supersedes };
}

/** Who wrote a stored memory, or null on a version-1 row. */
export function writerOf(
  row: Pick<StoredLeafColumns, "writerKind" | "writerKeyId">,
): LeafWriter | null {
  return writerFromColumns(row.writerKind, row.writerKeyId);
}

/** The writer of every memory written by a wallet session: one shared, frozen object. */
const SESSION_WRITER: LeafWriter = Object.freeze({ kind: "session" });

/**
 * The writer named by the `writer_kind` / `writer_key_id` columns, or null (a version-1 row).
 * Sessions share one frozen object (the recall cache keeps one per memory).
 */
export function writerFromColumns(
  kind: "session" | "api_key" | null,
  keyId: string | null,
): LeafWriter | null {
  if (kind === "api_key" && keyId !== null) {
    return { kind: "api_key", keyId };
  }
  return kind === "session" ? SESSION_WRITER : null;
}
