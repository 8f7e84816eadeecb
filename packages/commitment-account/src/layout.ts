/**
 * The commitment account's data: 121 bytes written by the commitment program's `initialize` and
 * `commit` (docs/protocol.md §7.1 "The commitment account"), in Anchor's account format: an 8-byte
 * discriminator `SHA-256("account:Commitment")[..8]`, then Borsh fields (public keys and the root
 * verbatim, u64 little-endian).
 *
 * | offset | bytes | field                          |
 * | ------ | ----- | ------------------------------ |
 * | 0      | 8     | discriminator                  |
 * | 8      | 32    | authority                      |
 * | 40     | 32    | owner                          |
 * | 72     | 32    | root (all zero before a commit)|
 * | 104    | 8     | memoryCount, u64 LE            |
 * | 112    | 8     | nonce, u64 LE                  |
 * | 120    | 1     | bump                           |
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { PUBLIC_KEY_BYTES, type PublicKeyInput, publicKeyBytes, publicKeyText } from "./keys.js";

/**
 * Anchor's discriminator of `preimage`: the first 8 bytes of its SHA-256, e.g.
 * `"account:Commitment"` or `"global:commit"` (Anchor `sighash` / account discriminator).
 * @returns a frozen array of 8 byte values.
 */
export function anchorDiscriminator(preimage: string): readonly number[] {
  return Object.freeze([...sha256(new TextEncoder().encode(preimage)).subarray(0, 8)]);
}

/** `SHA-256("account:Commitment")[..8]`, the first 8 bytes of every commitment account. */
export const COMMITMENT_ACCOUNT_DISCRIMINATOR: readonly number[] =
  anchorDiscriminator("account:Commitment");

/** Size in bytes of a commitment account: 8 + 32 + 32 + 32 + 8 + 8 + 1. */
export const COMMITMENT_ACCOUNT_SIZE = 121;

/** Byte offsets of the commitment account fields. */
export const COMMITMENT_LAYOUT = Object.freeze({
  discriminator: 0,
  authority: 8,
  owner: 40,
  root: 72,
  memoryCount: 104,
  nonce: 112,
  bump: 120,
});

/** A decoded commitment account. */
export interface CommitmentAccount {
  /** The key allowed to commit, base58. */
  readonly authority: string;
  /** The wallet whose log is committed, base58. */
  readonly owner: string;
  /** The committed Merkle root, 32 bytes (all zero before the first commit). */
  readonly root: Uint8Array;
  /** Tree size of `root` (u64). */
  readonly memoryCount: bigint;
  /** Commits so far (u64); the next commit must pass it as `expectedNonce`. */
  readonly nonce: bigint;
  /** The account address's bump seed. */
  readonly bump: number;
}

/** What {@link encodeCommitment} writes. */
export interface CommitmentAccountFields {
  readonly authority: PublicKeyInput;
  readonly owner: PublicKeyInput;
  /** 32 bytes. */
  readonly root: Uint8Array;
  /** u64. */
  readonly memoryCount: bigint;
  /** u64. */
  readonly nonce: bigint;
  /** 0–255. */
  readonly bump: number;
}

/** Account data that is not a commitment account (wrong size or discriminator). */
export class InvalidCommitmentDataError extends Error {
  override readonly name = "InvalidCommitmentDataError";
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * Decodes commitment account data.
 * @param data exactly 121 bytes starting with {@link COMMITMENT_ACCOUNT_DISCRIMINATOR}.
 * @returns the fields; public keys in base58, counts as bigints, `root` a copy.
 * @throws InvalidCommitmentDataError on a wrong length or discriminator.
 */
export function decodeCommitment(data: Uint8Array): CommitmentAccount {
  if (data.length !== COMMITMENT_ACCOUNT_SIZE) {
    throw new InvalidCommitmentDataError(
      `commitment account data must be ${COMMITMENT_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  if (!COMMITMENT_ACCOUNT_DISCRIMINATOR.every((byte, i) => data[i] === byte)) {
    throw new InvalidCommitmentDataError(
      "account discriminator is not sha256('account:Commitment')",
    );
  }
  const L = COMMITMENT_LAYOUT;
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  return {
    authority: publicKeyText(data.subarray(L.authority, L.authority + PUBLIC_KEY_BYTES)),
    owner: publicKeyText(data.subarray(L.owner, L.owner + PUBLIC_KEY_BYTES)),
    root: Uint8Array.from(data.subarray(L.root, L.root + 32)),
    memoryCount: view.getBigUint64(L.memoryCount, true),
    nonce: view.getBigUint64(L.nonce, true),
    bump: data[L.bump] as number,
  };
}

/**
 * Encodes commitment account data, the bytes the program stores (for tests, fixtures and
 * simulators; the service never writes accounts itself).
 * @returns 121 bytes.
 * @throws TypeError when a key is not a 32-byte public key; RangeError when `root` is not
 *   32 bytes, a count is not a u64 or `bump` is not 0–255.
 */
export function encodeCommitment(fields: CommitmentAccountFields): Uint8Array {
  if (!(fields.root instanceof Uint8Array) || fields.root.length !== 32) {
    throw new RangeError("root must be 32 bytes");
  }
  for (const [name, value] of [
    ["memoryCount", fields.memoryCount],
    ["nonce", fields.nonce],
  ] as const) {
    if (typeof value !== "bigint" || value < 0n || value > U64_MAX) {
      throw new RangeError(`${name} must be a bigint in 0..2^64-1, got ${String(value)}`);
    }
  }
  if (!Number.isInteger(fields.bump) || fields.bump < 0 || fields.bump > 255) {
    throw new RangeError(`bump must be an integer in 0..255, got ${fields.bump}`);
  }
  const L = COMMITMENT_LAYOUT;
  const data = new Uint8Array(COMMITMENT_ACCOUNT_SIZE);
  const view = new DataView(data.buffer);
  data.set(COMMITMENT_ACCOUNT_DISCRIMINATOR, L.discriminator);
  data.set(publicKeyBytes(fields.authority, "authority"), L.authority);
  data.set(publicKeyBytes(fields.owner, "owner"), L.owner);
  data.set(fields.root, L.root);
  view.setBigUint64(L.memoryCount, fields.memoryCount, true);
  view.setBigUint64(L.nonce, fields.nonce, true);
  data[L.bump] = fields.bump;
  return data;
}
