/**
 * The log keys a verifier trusts for signed user checkpoints (docs/protocol.md §13.1 "The log
 * key"): verifier keys `<LOG_ORIGIN>+<key id>+<base64(0x01 ‖ key)>` pinned by the caller
 * (`svc-verify --log-key`, several during a rotation), or, as a convenience, the `logKeys` that
 * `GET /info` of the memory API lists (docs/protocol.md §6.6 "Deployment facts").
 * @module
 */
import { type NoteVerifier, parseVerifierKey } from "@verifiable-memory/signed-note";
import { apiBase, type ConsistencyFetcherOptions, getJson } from "./consistency.js";

/**
 * Parses pinned verifier keys.
 * @returns one NoteVerifier per key, in order.
 * @throws TypeError naming the first key that is not an Ed25519 verifier key whose key id
 *   matches its name and key.
 */
export function parseLogKeys(vkeys: readonly string[]): NoteVerifier[] {
  return vkeys.map((vkey) => {
    try {
      return parseVerifierKey(vkey);
    } catch {
      throw new TypeError(`not a log verifier key (<name>+<key id>+<base64 key>): ${vkey}`);
    }
  });
}

/**
 * The verifier keys `GET {apiUrl}/info` lists as `logKeys` (the current key first, then the
 * previous ones). Trusting them trusts the API: pin keys instead where it matters.
 * @returns the keys (possibly none: a deployment without a log key).
 * @throws ConsistencyFetchError when the request fails or answers a non-2xx status or no JSON;
 *   TypeError when `logKeys` is not an array of strings, or `apiUrl` is not an absolute http(s) URL.
 */
export async function logKeysFromInfo(
  apiUrl: string,
  options: ConsistencyFetcherOptions = {},
): Promise<string[]> {
  const body = await getJson(new URL("info", apiBase(apiUrl)).toString(), options);
  const keys = (body as { logKeys?: unknown } | null)?.logKeys;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === "string")) {
    throw new TypeError("GET /info answered no logKeys array of strings");
  }
  return [...keys];
}
