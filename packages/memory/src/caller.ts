/**
 * The authenticated caller as the services need it: the user loaded once per request by the
 * bearer middleware (docs/protocol.md §3.1 "Bearer tokens"), and the data key unwrapped from it.
 * @module
 */
import type { AuthContext } from "@verifiable-memory/auth";
import type { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { LRUCache } from "lru-cache";

/** The owner of the memories a service call touches. */
export interface Owner {
  readonly userId: string;
  /** Wallet public key, base58. */
  readonly ownerPubkey: string;
}

/**
 * The caller as the memory services see it (docs/protocol.md §3.5 "Scopes, expiry and
 * confinement"): the owner, the credential that writes (`writtenBy`), and the namespace prefix an
 * API key is confined to (null: the whole wallet). `AuthContext` of `@verifiable-memory/auth` is
 * one.
 */
export interface Caller extends Owner {
  readonly credential: "session" | "api_key";
  readonly apiKeyId: string | null;
  readonly namespace: string | null;
}

/** A user's wrapped data key (as loaded with the user) and what it unwrapped to. */
interface UnwrappedKey {
  readonly wrapped: Buffer;
  readonly key: Uint8Array;
}

/**
 * Users' data keys unwrapped under the master keys (envelope encryption's data-key caching): the
 * wrapped key still comes from the user row loaded on every request; the AES-256-GCM open, under
 * the configured master key whose id the wrap names, is done once per user and wrapped key, and
 * the result kept in process memory (least recently used evicted), where the recall cache already
 * holds the same users' plaintexts. A key re-wrapped by `pnpm rotate-master-key` is a new wrapped
 * key: it is unwrapped again (to the same data key) on its user's next request. Never written to
 * disk or logs. docs/security.md "Encryption at rest".
 */
export class DataKeys {
  private readonly unwrapped: LRUCache<string, UnwrappedKey>;

  /**
   * @param masterKeys the configured key-encryption keys (MASTER_ENCRYPTION_KEY and
   *   MASTER_ENCRYPTION_KEYS_PREVIOUS).
   * @param max most users whose data key is kept; default 10 000.
   * @throws RangeError when `max` is not a positive integer.
   */
  constructor(
    private readonly masterKeys: MasterKeyring,
    max = 10_000,
  ) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`max must be a positive integer, got ${max}`);
    }
    this.unwrapped = new LRUCache({ max });
  }

  /** How many users' data keys are kept. */
  get size(): number {
    return this.unwrapped.size;
  }

  /**
   * The user's data key (32 bytes; shared, do not modify): the one kept for this user when its
   * wrapped form equals `auth.wrappedDataKey` byte for byte, else unwrapped now and kept.
   * @throws DecryptionError when the wrapped key names a master key id that is not configured
   *   (`unknown_master_key`) or does not open under it (nothing is kept then).
   */
  of(auth: Pick<AuthContext, "userId" | "wrappedDataKey">): Uint8Array {
    const kept = this.unwrapped.get(auth.userId);
    if (kept?.wrapped.equals(auth.wrappedDataKey)) {
      return kept.key;
    }
    const key = this.masterKeys.unwrap(auth.wrappedDataKey, auth.userId);
    this.unwrapped.set(auth.userId, { wrapped: Buffer.from(auth.wrappedDataKey), key });
    return key;
  }
}
