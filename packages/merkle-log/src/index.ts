/**
 * `@verifiable-memory/merkle-log`: the RFC 9162 §2.1 (RFC 6962) Merkle tree of the memory log: hashing,
 * compact-range appends, inclusion and consistency proofs, and their verification. Depends on
 * @noble/hashes only, so auditors and browsers can run it alone.
 * @module
 */
export { CompactRange } from "./compact-range.js";
export { ProofError, type ProofErrorReason, RootMismatchError } from "./errors.js";
export { EMPTY_ROOT, type Hash, hashChildren, hashLeaf, rootFromLeafHashes } from "./hasher.js";
export { fromHex, toHex } from "./hex.js";
export { MemoryNodeStore, MissingNodeError } from "./memory-store.js";
export { type NodeHashSource, type NodeId, rangeNodes, type StoredNode } from "./nodes.js";
export {
  consistencyProof,
  consistencyProofNodeIds,
  inclusionProof,
  inclusionProofNodeIds,
} from "./proof.js";
export {
  decodeEntryBundle,
  encodeEntryBundle,
  parseTilePath,
  readTile,
  rootFromSource,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileFetcher,
  type TileId,
  TileNodeSource,
  tileIndexPath,
  tileNodeIds,
  tilePath,
  tilesAt,
  tileWidthAt,
} from "./tiles.js";
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from "./verify.js";
