/**
 * The plaintext inside a memory's envelope (docs/protocol.md §4): the 16-byte commitment salt followed by
 * the UTF-8 content, sealed under the user's data key with the associated data binding the user id
 * and the memory id (`@verifiable-memory/envelope-crypto` encryptBody). The salt never leaves the envelope except
 * to whoever may read the plaintext.
 * @module
 */
import {
  decryptBody,
  encryptBody,
  pooledRandom,
  type SealedBody,
} from "@verifiable-memory/envelope-crypto";

/** Bytes of the per-memory commitment salt (docs/protocol.md §4). */
export const SALT_BYTES = 16;

/** A memory's secret part: its salt and its content. */
export interface MemoryBody {
  /** 16 random bytes, hashed with the content into the leaf's `contentHash`. */
  readonly salt: Uint8Array;
  readonly content: string;
}

/** Whose memory a body is: bound into the envelope's associated data. */
export interface BodyOwner {
  readonly userId: string;
  readonly memoryId: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A fresh random salt, {@link SALT_BYTES} bytes from the CSPRNG (`pooledRandom`). */
export function newSalt(): Uint8Array {
  return pooledRandom(SALT_BYTES);
}

/**
 * Seals `body` under the user's data key: plaintext = salt ‖ UTF-8 content.
 * @returns the envelope's `{ ciphertext, iv }` columns.
 * @throws RangeError when the salt is not 16 bytes; TypeError from encryptBody on a bad key.
 */
export function sealMemoryBody(
  dataKey: Uint8Array,
  body: MemoryBody,
  owner: BodyOwner,
): SealedBody {
  if (body.salt.length !== SALT_BYTES) {
    throw new RangeError(`salt must be ${SALT_BYTES} bytes, got ${body.salt.length}`);
  }
  const content = encoder.encode(body.content);
  const plaintext = new Uint8Array(SALT_BYTES + content.length);
  plaintext.set(body.salt, 0);
  plaintext.set(content, SALT_BYTES);
  return encryptBody(dataKey, plaintext, owner);
}

/**
 * Opens a body sealed by {@link sealMemoryBody} for the same user and memory id.
 * @throws DecryptionError (`@verifiable-memory/envelope-crypto`) when the envelope does not open; RangeError
 *   when the plaintext is shorter than the salt; TypeError when the content is not UTF-8.
 */
export function openMemoryBody(
  dataKey: Uint8Array,
  sealed: SealedBody,
  owner: BodyOwner,
): MemoryBody {
  const plaintext = decryptBody(dataKey, sealed, owner);
  if (plaintext.length < SALT_BYTES) {
    throw new RangeError(`memory ${owner.memoryId}: plaintext shorter than its salt`);
  }
  return {
    salt: plaintext.slice(0, SALT_BYTES),
    content: decoder.decode(plaintext.subarray(SALT_BYTES)),
  };
}
