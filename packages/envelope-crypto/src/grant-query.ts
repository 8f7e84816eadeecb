/**
 * Sealing the query text of a `search` capability grant (docs/protocol.md §8.1 "Creation"): a
 * query says what its owner looks for in their memories, so it is stored only sealed under the
 * owner's data key. Plaintext = the query's UTF-8 bytes. Sealed query = `iv` (12 fresh random
 * bytes) and `ciphertext` = version(1) ‖ AES-256-GCM ciphertext ‖ tag(16), with AAD =
 * "svc/envelope/grant-query" ‖ 0x00 ‖ 0x01 ‖ u32be(len) ‖ userId ‖ u32be(len) ‖ grantId, in the
 * style of §4.3 "The sealed body". A query moved to another grant or another user does not open.
 * Same IV bound as the bodies (body.ts).
 * @module
 */
import {
  checkBytes,
  checkField,
  encodeAad,
  GRANT_QUERY_AAD,
  GRANT_QUERY_VERSION,
} from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";
import { DecryptionError } from "./errors.js";

/** What a grant query is bound to: the grant's owner and the grant's id. */
export interface GrantQueryContext {
  userId: string;
  grantId: string;
}

const VERSION_PREFIX = Uint8Array.of(GRANT_QUERY_VERSION);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Seals a grant's query text under its owner's data key with a fresh random IV.
 * @param query the query (any well-formed string; its UTF-8 bytes are sealed).
 * @returns `{ ciphertext, iv }`; `ciphertext.length` = UTF-8 length of `query` + 17.
 * @throws TypeError when `dataKey` is not 32 bytes, `query` or a context field is not a
 *   well-formed string, or `random` returns anything but 12 bytes.
 */
export function encryptGrantQuery(
  dataKey: Uint8Array,
  query: string,
  context: GrantQueryContext,
  random: RandomSource = pooledRandom,
): SealedBody {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const plaintext = Buffer.from(checkField(query, "query"), "utf8");
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  return {
    ciphertext: gcmSeal(dataKey, iv, plaintext, grantQueryAad(context), VERSION_PREFIX),
    iv,
  };
}

/**
 * Opens a query sealed by {@link encryptGrantQuery} under the same key, user and grant.
 * @returns the query text.
 * @throws DecryptionError `malformed` (truncated, IV not 12 bytes, plaintext not UTF-8),
 *   `unsupported_version` or `authentication_failed` (another key, user or grant, or any changed
 *   bit); TypeError on malformed arguments.
 */
export function decryptGrantQuery(
  dataKey: Uint8Array,
  sealed: SealedBody,
  context: GrantQueryContext,
): string {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const { ciphertext, iv } = sealed;
  if (!(ciphertext instanceof Uint8Array) || !(iv instanceof Uint8Array)) {
    throw new TypeError("sealed.ciphertext and sealed.iv must be Uint8Arrays");
  }
  if (ciphertext.length < 1 + TAG_BYTES || iv.length !== IV_BYTES) {
    throw new DecryptionError("malformed", "sealed query is truncated or its IV is not 12 bytes");
  }
  if (ciphertext[0] !== GRANT_QUERY_VERSION) {
    throw new DecryptionError("unsupported_version", `grant query version ${ciphertext[0]}`);
  }
  const plaintext = gcmOpen(dataKey, iv, ciphertext, grantQueryAad(context), 1);
  try {
    return utf8.decode(plaintext);
  } catch {
    throw new DecryptionError("malformed", "sealed query is not UTF-8");
  }
}

function grantQueryAad(context: GrantQueryContext): Uint8Array {
  return encodeAad(
    GRANT_QUERY_AAD,
    checkField(context.userId, "context.userId"),
    checkField(context.grantId, "context.grantId"),
  );
}
