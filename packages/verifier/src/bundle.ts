/**
 * The proof bundle of docs/protocol.md §6 (`GET /memories/:id/proof`), and the memory objects of
 * capability grants that carry it nested as `proof` (docs/protocol.md §8), checked field by field before
 * anything is hashed. Hashes are lowercase hex, `salt` standard base64 (RFC 4648 §4).
 * @module
 */
import type { LeafData, LeafWriter } from "./leaf.js";

/** `checkpoint` of a bundle: the latest anchored tree size and root. */
export interface BundleCheckpoint {
  readonly treeSize: number;
  readonly rootHash: string;
}

/** `anchor` of a bundle: where the checkpoint was committed. */
export interface BundleAnchor {
  readonly cluster: string;
  readonly programId: string;
  /** The owner's commitment PDA, base58. */
  readonly account: string;
  readonly memoryCount: number;
  /** The account's nonce after that commit. */
  readonly nonce: number;
  /** The commit transaction's signature, base58. */
  readonly signature: string;
}

/** `checkpointLog.anchor` of a bundle: where the checkpoint log's root was committed. */
export interface CheckpointLogAnchor {
  readonly cluster: string;
  readonly programId: string;
  /** The checkpoint log account (PDA `["checkpoint-log", authority]`), base58. */
  readonly account: string;
  /** The checkpoint log size committed. */
  readonly size: number;
  /** The account's nonce after that commit. */
  readonly nonce: number;
  /** The commit transaction's signature, base58. */
  readonly signature: string;
  /** The slot it landed in, or null when not recorded. */
  readonly slot: number | null;
}

/**
 * `checkpointLog` of a bundle (docs/protocol.md §13.5 "The checkpoint log"): the signed user
 * checkpoint covering the memory, and that checkpoint's entry in the anchored checkpoint log.
 */
export interface CheckpointLogProof {
  /** The entry: the user checkpoint's note text (origin, size, base64 root lines). */
  readonly entry: string;
  /** The same note signed by the log key (C2SP signed note). */
  readonly userCheckpoint: string;
  /** The memory's audit path to the user checkpoint's root, lowercase hex. */
  readonly userInclusionProof: readonly string[];
  /** The entry's index in the checkpoint log. */
  readonly leafIndex: number;
  /** The checkpoint log size the proof is cut at. */
  readonly treeSize: number;
  /** The checkpoint log's root at `treeSize`, lowercase hex. */
  readonly rootHash: string;
  /** The entry's audit path to `rootHash`, lowercase hex. */
  readonly inclusionProof: readonly string[];
  readonly anchor: CheckpointLogAnchor;
}

/** A proof bundle (docs/protocol.md §6). `checkpoint`, `inclusionProof`, `anchor` are null until anchored. */
export interface ProofBundle {
  readonly memoryId: string;
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly leafData: LeafData;
  /** The memory's salt, standard base64. */
  readonly salt: string;
  readonly anchored: boolean;
  readonly checkpoint: BundleCheckpoint | null;
  readonly inclusionProof: readonly string[] | null;
  readonly anchor: BundleAnchor | null;
  /** The checkpoint-log path; null when none covers the memory yet (or the bundle predates it). */
  readonly checkpointLog?: CheckpointLogProof | null;
}

/** A bundle and the memory content that came with it (a grant's memory object), if any. */
export interface ParsedInput {
  readonly bundle: ProofBundle;
  readonly content: string | null;
}

/** Input that is not a proof bundle; `field` names the first offending field. */
export class BundleFormatError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "BundleFormatError";
    this.field = field;
  }
}

const HEX32 = /^[0-9a-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(obj: Json, key: string, path: string): string {
  const value = obj[key];
  if (typeof value !== "string" || value.length === 0) {
    throw new BundleFormatError(`${path}${key}`, "must be a non-empty string");
  }
  return value;
}

function int(obj: Json, key: string, path: string): number {
  const value = obj[key];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new BundleFormatError(`${path}${key}`, "must be a non-negative integer");
  }
  return value;
}

function hex32(obj: Json, key: string, path: string): string {
  const value = str(obj, key, path);
  if (!HEX32.test(value)) {
    throw new BundleFormatError(`${path}${key}`, "must be 64 lowercase hex characters");
  }
  return value;
}

const LEAF_FIELDS_V1 = ["v", "memoryId", "owner", "createdAt", "metadata", "contentHash"];
const LEAF_FIELDS_V2 = [...LEAF_FIELDS_V1, "namespace", "writtenBy", "supersedes"];

function parseLeafData(value: unknown): LeafData {
  if (!isObject(value)) {
    throw new BundleFormatError("leafData", "must be an object");
  }
  if (value.v !== 1 && value.v !== 2) {
    throw new BundleFormatError("leafData.v", "must be 1 or 2");
  }
  if (!isObject(value.metadata)) {
    throw new BundleFormatError("leafData.metadata", "must be an object");
  }
  const fields = value.v === 1 ? LEAF_FIELDS_V1 : LEAF_FIELDS_V2;
  const extra = Object.keys(value).filter((k) => !fields.includes(k));
  if (extra.length > 0) {
    throw new BundleFormatError(`leafData.${extra[0]}`, "is not a leaf field");
  }
  const common = {
    memoryId: str(value, "memoryId", "leafData."),
    owner: str(value, "owner", "leafData."),
    createdAt: str(value, "createdAt", "leafData."),
    metadata: value.metadata,
    contentHash: hex32(value, "contentHash", "leafData."),
  };
  if (value.v === 1) {
    return { v: 1, ...common };
  }
  return {
    v: 2,
    ...common,
    namespace: nullableStr(value, "namespace", "leafData."),
    writtenBy: parseWriter(value.writtenBy),
    supersedes: nullableStr(value, "supersedes", "leafData."),
  };
}

function nullableStr(obj: Json, key: string, path: string): string | null {
  if (!(key in obj)) {
    throw new BundleFormatError(`${path}${key}`, "is missing (null when absent)");
  }
  return obj[key] === null ? null : str(obj, key, path);
}

function parseWriter(value: unknown): LeafWriter {
  if (!isObject(value)) {
    throw new BundleFormatError("leafData.writtenBy", "must be an object");
  }
  if (value.kind === "session" && Object.keys(value).length === 1) {
    return { kind: "session" };
  }
  if (value.kind === "api_key" && Object.keys(value).length === 2) {
    return { kind: "api_key", keyId: str(value, "keyId", "leafData.writtenBy.") };
  }
  throw new BundleFormatError(
    "leafData.writtenBy",
    'must be { kind: "session" } or { kind: "api_key", keyId }',
  );
}

function hexList(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) {
    throw new BundleFormatError(path, "must be an array");
  }
  return value.map((node, i) => {
    if (typeof node !== "string" || !HEX32.test(node)) {
      throw new BundleFormatError(`${path}[${i}]`, "must be 64 lowercase hex characters");
    }
    return node;
  });
}

function parseCheckpointLog(value: unknown): CheckpointLogProof | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (!isObject(value)) {
    throw new BundleFormatError("checkpointLog", "must be an object or null");
  }
  const anchor = value.anchor;
  if (!isObject(anchor)) {
    throw new BundleFormatError("checkpointLog.anchor", "must be an object");
  }
  const path = "checkpointLog.anchor.";
  return {
    entry: str(value, "entry", "checkpointLog."),
    userCheckpoint: str(value, "userCheckpoint", "checkpointLog."),
    userInclusionProof: hexList(value.userInclusionProof, "checkpointLog.userInclusionProof"),
    leafIndex: int(value, "leafIndex", "checkpointLog."),
    treeSize: int(value, "treeSize", "checkpointLog."),
    rootHash: hex32(value, "rootHash", "checkpointLog."),
    inclusionProof: hexList(value.inclusionProof, "checkpointLog.inclusionProof"),
    anchor: {
      cluster: str(anchor, "cluster", path),
      programId: str(anchor, "programId", path),
      account: str(anchor, "account", path),
      size: int(anchor, "size", path),
      nonce: int(anchor, "nonce", path),
      signature: str(anchor, "signature", path),
      slot: anchor.slot === null || anchor.slot === undefined ? null : int(anchor, "slot", path),
    },
  };
}

function parseBundle(value: Json): ProofBundle {
  const salt = str(value, "salt", "");
  if (!BASE64.test(salt)) {
    throw new BundleFormatError("salt", "must be standard base64");
  }
  if (typeof value.anchored !== "boolean") {
    throw new BundleFormatError("anchored", "must be a boolean");
  }
  let checkpoint: BundleCheckpoint | null = null;
  if (value.checkpoint !== null && value.checkpoint !== undefined) {
    if (!isObject(value.checkpoint)) {
      throw new BundleFormatError("checkpoint", "must be an object or null");
    }
    checkpoint = {
      treeSize: int(value.checkpoint, "treeSize", "checkpoint."),
      rootHash: hex32(value.checkpoint, "rootHash", "checkpoint."),
    };
  }
  const inclusionProof =
    value.inclusionProof === null || value.inclusionProof === undefined
      ? null
      : hexList(value.inclusionProof, "inclusionProof");
  let anchor: BundleAnchor | null = null;
  if (value.anchor !== null && value.anchor !== undefined) {
    if (!isObject(value.anchor)) {
      throw new BundleFormatError("anchor", "must be an object or null");
    }
    anchor = {
      cluster: str(value.anchor, "cluster", "anchor."),
      programId: str(value.anchor, "programId", "anchor."),
      account: str(value.anchor, "account", "anchor."),
      memoryCount: int(value.anchor, "memoryCount", "anchor."),
      nonce: int(value.anchor, "nonce", "anchor."),
      signature: str(value.anchor, "signature", "anchor."),
    };
  }
  return {
    memoryId: str(value, "memoryId", ""),
    leafIndex: int(value, "leafIndex", ""),
    leafHash: hex32(value, "leafHash", ""),
    leafData: parseLeafData(value.leafData),
    salt,
    anchored: value.anchored,
    checkpoint,
    inclusionProof,
    anchor,
    checkpointLog: parseCheckpointLog(value.checkpointLog),
  };
}

/**
 * Reads verifier input: a proof bundle (`GET /memories/:id/proof`), or a memory object with the
 * bundle nested as `proof` (a capability grant's memory). A top-level string `content` is the
 * memory's plaintext, checked against the leaf's content hash.
 * @returns the bundle and the accompanying content (null when absent).
 * @throws BundleFormatError naming the first missing or malformed field.
 */
export function parseInput(value: unknown): ParsedInput {
  if (!isObject(value)) {
    throw new BundleFormatError("(input)", "must be a JSON object");
  }
  const content = value.content;
  if (content !== undefined && content !== null && typeof content !== "string") {
    throw new BundleFormatError("content", "must be a string");
  }
  const bundle = parseBundle(isObject(value.proof) ? value.proof : value);
  return { bundle, content: content ?? null };
}
