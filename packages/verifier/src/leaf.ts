/**
 * The leaf encoding of docs/protocol.md §5: `leafData` is the UTF-8 of the RFC 8785 (JSON Canonicalization
 * Scheme) form of the leaf object, the leaf hash is RFC 9162 §2.1.1 `SHA-256(0x00 ‖ leafData)`, and
 * `contentHash = hex(SHA-256(salt ‖ UTF-8 content))` with the memory's 16-byte salt (SHA-256 from
 * `#sha256`: `node:crypto` in Node.js, `@noble/hashes` under the `"browser"` condition). Two versions:
 * - v1 `{ v: 1, memoryId, owner, createdAt, metadata, contentHash }` (every leaf written before
 *   the agent memory model; they keep verifying exactly as before);
 * - v2 adds `namespace` (string or null), `writtenBy` (`{ kind: "session" }` or
 *   `{ kind: "api_key", keyId }`) and `supersedes` (a memory id or null): all three always present.
 * @module
 */
import { type Hash, hashLeaf, toHex } from "@verifiable-memory/merkle-log";
import canonicalizeModule from "canonicalize";
import { sha256 } from "#sha256";

// canonicalize is CommonJS (`module.exports = serialize`) while its typings declare an ES default
// export; under NodeNext the default import is that function at runtime.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** Who wrote a version-2 leaf: a wallet session, or one API key by id. */
export type LeafWriter =
  | { readonly kind: "session" }
  | { readonly kind: "api_key"; readonly keyId: string };

/** The object a version-2 leaf commits to (docs/protocol.md §5). */
export interface LeafDataV2 extends Omit<LeafDataV1, "v"> {
  readonly v: 2;
  /** The memory's namespace, or null. */
  readonly namespace: string | null;
  readonly writtenBy: LeafWriter;
  /** The id of the memory this one supersedes (an update), or null. */
  readonly supersedes: string | null;
}

/** The object a memory's leaf commits to, either version (docs/protocol.md §5). */
export type LeafData = LeafDataV1 | LeafDataV2;

/** The object a version-1 leaf commits to (docs/protocol.md §5). */
export interface LeafDataV1 {
  readonly v: 1;
  readonly memoryId: string;
  /** The owner's wallet public key, base58 (seed of the commitment PDA). */
  readonly owner: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly createdAt: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** hex(SHA-256(salt ‖ UTF-8 content)). */
  readonly contentHash: string;
}

/**
 * The hashed bytes of a leaf: UTF-8 of the RFC 8785 canonical JSON of `leafData`.
 * @throws TypeError when `leafData` cannot be canonicalised (e.g. not JSON-serialisable).
 */
export function leafDataBytes(leafData: LeafData): Uint8Array {
  const text = canonicalize(leafData);
  if (typeof text !== "string") {
    throw new TypeError("leafData must be a JSON object");
  }
  return new TextEncoder().encode(text);
}

/** RFC 9162 §2.1.1 leaf hash of `leafData`: SHA-256(0x00 ‖ leafDataBytes(leafData)). */
export function leafHashOf(leafData: LeafData): Hash {
  return hashLeaf(leafDataBytes(leafData));
}

/**
 * docs/protocol.md §4 content hash: lowercase hex of SHA-256(salt ‖ UTF-8 content).
 * @param salt the memory's salt (16 bytes; from the bundle's base64 `salt`).
 * @throws TypeError when `salt` is not a Uint8Array or `content` not a string.
 */
export function contentHashOf(salt: Uint8Array, content: string): string {
  if (!(salt instanceof Uint8Array)) {
    throw new TypeError("salt must be a Uint8Array");
  }
  if (typeof content !== "string") {
    throw new TypeError("content must be a string");
  }
  return toHex(sha256(salt, new TextEncoder().encode(content)));
}
