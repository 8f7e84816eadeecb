/**
 * A memory's leaf (docs/protocol.md §5 "Leaf encoding"): `leafData` = `{ v: 1, memoryId, owner,
 * createdAt, metadata, contentHash }`, hashed as RFC 9162 §2.1.1 SHA-256(0x00 ‖ RFC 8785
 * canonical UTF-8 JSON). The encoding itself lives in `@svc/verifier`, so the service and the
 * auditor's CLI hash the very same bytes.
 * @module
 */
import type { Hash } from "@svc/merkle-log";
import { contentHashOf, type LeafData, leafHashOf } from "@svc/verifier";
import type { MemoryBody } from "./memory-body.js";

/** The clear fields of a memory that its leaf commits to, beside the body. */
export interface LeafFields {
  readonly memoryId: string;
  /** The owner's wallet public key, base58. */
  readonly owner: string;
  readonly createdAt: Date;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * The leaf data object and its leaf hash for a memory.
 * @returns `{ leafData, leafHash }` (leafHash 32 bytes).
 * @throws TypeError when the metadata cannot be canonicalised.
 */
export function memoryLeaf(
  fields: LeafFields,
  body: MemoryBody,
): { leafData: LeafData; leafHash: Hash } {
  const leafData: LeafData = {
    v: 1,
    memoryId: fields.memoryId,
    owner: fields.owner,
    createdAt: fields.createdAt.toISOString(),
    metadata: fields.metadata,
    contentHash: contentHashOf(body.salt, body.content),
  };
  return { leafData, leafHash: leafHashOf(leafData) };
}
