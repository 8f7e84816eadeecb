/**
 * The master keys of a process (MASTER_ENCRYPTION_KEY and MASTER_ENCRYPTION_KEYS_PREVIOUS): the
 * current one wraps new data keys; every one, current and previous, unwraps the data keys that
 * name its id, so the master key can be rotated by re-wrapping data keys while the service runs
 * (docs/security.md "Master-key rotation").
 * @module
 */
import { checkBytes } from "./_format.js";
import { KEY_BYTES } from "./_gcm.js";
import type { RandomSource } from "./_random.js";
import { unwrapDataKey, wrapDataKey, wrappedKeyId } from "./data-key.js";
import { DecryptionError } from "./errors.js";
import { masterKeyId } from "./master-key.js";

/** A master key and its id (`masterKeyId`). */
export interface MasterKey {
  /** 16 lowercase hex characters: the first 8 bytes of SHA-256 of `key`. */
  readonly id: string;
  /** The 32 key bytes. */
  readonly key: Uint8Array;
}

/** The configured master keys: one current, any number of previous ones. */
export class MasterKeyring {
  /** The key new wraps use (MASTER_ENCRYPTION_KEY). */
  readonly current: MasterKey;
  private readonly byId: ReadonlyMap<string, Uint8Array>;

  /**
   * @param current the 32-byte key new data keys are wrapped under.
   * @param previous 32-byte keys that only unwrap (old master keys still named by some data
   *   keys); a repeat of the current key, or of another, is ignored.
   * @throws TypeError when a key is not a Uint8Array of 32 bytes.
   * @example new MasterKeyring(parseMasterKey(newText), [parseMasterKey(oldText)])
   */
  constructor(current: Uint8Array, previous: readonly Uint8Array[] = []) {
    const byId = new Map<string, Uint8Array>();
    for (const [index, key] of [current, ...previous].entries()) {
      checkBytes(key, KEY_BYTES, index === 0 ? "current" : `previous[${index - 1}]`);
      const id = masterKeyId(key);
      if (!byId.has(id)) {
        byId.set(id, key);
      }
    }
    this.current = { id: masterKeyId(current), key: current };
    this.byId = byId;
  }

  /** The ids of every configured key, the current one first. */
  get ids(): readonly string[] {
    return [...this.byId.keys()];
  }

  /** Whether a key with this id is configured (current or previous). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * Wraps a data key under the current master key (format version 2, naming its id).
   * @returns 69 bytes, as `wrapDataKey`.
   * @throws TypeError as `wrapDataKey` (a data key that is not 32 bytes, a malformed userId).
   */
  wrap(dataKey: Uint8Array, userId: string, random?: RandomSource): Uint8Array {
    return wrapDataKey(this.current.key, dataKey, userId, random);
  }

  /**
   * Unwraps a user's data key with the master key its wrap names. A version-1 wrap names none: it
   * is tried under each configured key, the current one first (GCM authentication tells which
   * one wrapped it).
   * @returns the 32-byte data key.
   * @throws DecryptionError: `unknown_master_key` when the wrap names a key id that is not
   *   configured (the message names the id); otherwise as `unwrapDataKey` (`malformed`,
   *   `unsupported_version`, `authentication_failed`).
   * @throws TypeError when `wrapped` is not a Uint8Array or `userId` is not a well-formed string.
   */
  unwrap(wrapped: Uint8Array, userId: string): Uint8Array {
    const id = wrappedKeyId(wrapped);
    if (id !== null) {
      const key = this.byId.get(id);
      if (key === undefined) {
        throw new DecryptionError(
          "unknown_master_key",
          `the data key is wrapped under master key id ${id}, which is not configured`,
        );
      }
      return unwrapDataKey(key, wrapped, userId);
    }
    let failure: unknown;
    for (const key of this.byId.values()) {
      try {
        return unwrapDataKey(key, wrapped, userId);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}
