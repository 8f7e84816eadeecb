/**
 * The sealing both kinds of recall segment share (segment.ts, vector-segment.ts): a plaintext
 * sealed under the user's data key as version(1) ‖ AES-256-GCM ciphertext ‖ tag(16) with a fresh
 * random 12-byte IV, bound by its AAD to a leaf range [firstLeaf, endLeaf) written
 * "<firstLeaf>-<endLeaf>" (decimal). Internal: the public functions are in those two modules.
 * @module
 */
import { checkBytes } from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import type { RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";
import { DecryptionError } from "./errors.js";

/** One kind of leaf-range message: its version byte and its name in error messages. */
export interface LeafRangeKind {
  readonly version: number;
  /** "segment" or "vector segment". */
  readonly name: string;
  /** The version byte as the ciphertext's one-byte prefix. */
  readonly prefix: Uint8Array;
}

/** The kind `name` sealed with version byte `version`. */
export function leafRangeKind(version: number, name: string): LeafRangeKind {
  return { version, name, prefix: Uint8Array.of(version) };
}

/**
 * `"<firstLeaf>-<endLeaf>"`, the leaf range's AAD field.
 * @throws TypeError unless 0 ≤ firstLeaf < endLeaf (safe integers).
 */
export function leafRangeField(firstLeaf: number, endLeaf: number): string {
  if (
    !Number.isSafeInteger(firstLeaf) ||
    !Number.isSafeInteger(endLeaf) ||
    firstLeaf < 0 ||
    endLeaf <= firstLeaf
  ) {
    throw new TypeError(
      `leaf range must be 0 <= firstLeaf < endLeaf, got [${firstLeaf}, ${endLeaf})`,
    );
  }
  return `${firstLeaf}-${endLeaf}`;
}

/**
 * Seals `plaintext` as a message of `kind` under `dataKey`, with the AAD `aadOf()` (called after
 * the key and plaintext checks, before the IV is drawn).
 * @returns `{ ciphertext, iv }`; `ciphertext.length === plaintext.length + 17`.
 * @throws TypeError when `dataKey` is not 32 bytes, `plaintext` is not a Uint8Array, `random`
 *   returns anything but 12 bytes, or as `aadOf` throws.
 */
export function sealLeafRange(
  kind: LeafRangeKind,
  dataKey: Uint8Array,
  plaintext: Uint8Array,
  aadOf: () => Uint8Array,
  random: RandomSource,
): SealedBody {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  if (!(plaintext instanceof Uint8Array)) {
    throw new TypeError("plaintext must be a Uint8Array");
  }
  const aad = aadOf();
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  return { ciphertext: gcmSeal(dataKey, iv, plaintext, aad, kind.prefix), iv };
}

/**
 * Opens a message of `kind` sealed by {@link sealLeafRange} under the same key and AAD
 * (`aadOf()`, called once the sealed columns passed their checks).
 * @returns the plaintext (a view of node's output buffer).
 * @throws DecryptionError `malformed` (truncated, IV not 12 bytes), `unsupported_version` (first
 *   byte is not `kind.version`) or `authentication_failed`; TypeError when `dataKey` is not 32
 *   bytes, a column is not a Uint8Array, or as `aadOf` throws.
 */
export function openLeafRange(
  kind: LeafRangeKind,
  dataKey: Uint8Array,
  sealed: SealedBody,
  aadOf: () => Uint8Array,
): Uint8Array {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const { ciphertext, iv } = sealed;
  if (!(ciphertext instanceof Uint8Array) || !(iv instanceof Uint8Array)) {
    throw new TypeError("sealed.ciphertext and sealed.iv must be Uint8Arrays");
  }
  if (ciphertext.length < 1 + TAG_BYTES || iv.length !== IV_BYTES) {
    throw new DecryptionError(
      "malformed",
      `sealed ${kind.name} is truncated or its IV is not 12 bytes`,
    );
  }
  if (ciphertext[0] !== kind.version) {
    throw new DecryptionError("unsupported_version", `${kind.name} version ${ciphertext[0]}`);
  }
  return gcmOpen(dataKey, iv, ciphertext, aadOf(), 1);
}
