/**
 * The authenticated caller as the services need it: the user loaded once per request by the
 * bearer middleware (spec §5 "Resolving a bearer token"), and the data key unwrapped from it.
 * @module
 */
import type { AuthContext } from "@svc/auth";
import { unwrapDataKey } from "@svc/envelope-crypto";

/** The owner of the memories a service call touches. */
export interface Owner {
  readonly userId: string;
  /** Wallet public key, base58. */
  readonly ownerPubkey: string;
}

/**
 * The user's data key, unwrapped under the master key (one AES-256-GCM open). Kept only for the
 * request; never cached, logged or stored.
 * @throws DecryptionError when the wrapped key does not open under this master key.
 */
export function dataKeyOf(
  masterKey: Uint8Array,
  auth: Pick<AuthContext, "userId" | "wrappedDataKey">,
): Uint8Array {
  return unwrapDataKey(masterKey, auth.wrappedDataKey, auth.userId);
}
