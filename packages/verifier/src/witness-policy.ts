/**
 * The witness policy check of `svc-verify --witness-key … --witness-policy <k>` (docs/protocol.md
 * §13.6 "Witnesses"): fetch the checkpoint log's latest checkpoint from `GET <api>/tlog/checkpoint`
 * and require the log's signature and at least k valid cosignatures by the pinned witnesses.
 * @module
 */
import {
  NoteError,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
} from "@verifiable-memory/signed-note";
import { apiBase, type ConsistencyFetcherOptions } from "./consistency.js";
import { parseLogKeys } from "./log-keys.js";

/** The outcome of {@link checkWitnessPolicy}. */
export type WitnessPolicyResult =
  | {
      readonly ok: true;
      /** The checkpoint log size the witnesses cosigned. */
      readonly size: number;
      /** The names of the witnesses whose valid cosignatures were counted. */
      readonly witnesses: readonly string[];
    }
  | {
      readonly ok: false;
      /** `witness_policy_unmet`, `note_signature_invalid`, `note_malformed` or `unreachable`. */
      readonly reason: string;
      readonly message: string;
    };

/**
 * Parses pinned witness verifier keys (type 0x04).
 * @throws TypeError naming the first key that is not a witness verifier key.
 */
export function parseWitnessKeys(vkeys: readonly string[]) {
  return vkeys.map((vkey) => {
    try {
      return parseCosignerVerifierKey(vkey);
    } catch {
      throw new TypeError(
        `not a witness verifier key (<name>+<key id>+<base64 0x04 key>): ${vkey}`,
      );
    }
  });
}

/**
 * Fetches `GET {apiUrl}/tlog/checkpoint` and checks it: signed by one of `logKeys` (the log's
 * origin is their key name) and cosigned by at least `k` of `witnessKeys`.
 * @param logKeys trusted log verifier keys (type 0x01).
 * @param witnessKeys trusted witness verifier keys (type 0x04).
 * @param k required cosignatures, 0 ≤ k ≤ witnessKeys.length.
 * @returns ok with the size and counted witnesses, or the reason it failed (`unreachable` when
 *   the request fails or does not answer 200).
 * @throws TypeError on a malformed key or `apiUrl`; RangeError on a k out of range.
 */
export async function checkWitnessPolicy(
  apiUrl: string,
  logKeys: readonly string[],
  witnessKeys: readonly string[],
  k: number,
  options: ConsistencyFetcherOptions = {},
): Promise<WitnessPolicyResult> {
  const logs = parseLogKeys(logKeys);
  const witnesses = parseWitnessKeys(witnessKeys);
  const url = new URL("tlog/checkpoint", apiBase(apiUrl)).toString();
  let note: string;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    if (response.status !== 200) {
      return {
        ok: false,
        reason: "unreachable",
        message: `GET ${url} answered ${response.status}`,
      };
    }
    note = await response.text();
  } catch (error) {
    return { ok: false, reason: "unreachable", message: `GET ${url}: ${(error as Error).message}` };
  }
  try {
    const opened = openWitnessedCheckpoint(note, logs, witnesses, k, logs[0]?.name);
    return {
      ok: true,
      size: opened.checkpoint.size,
      witnesses: opened.cosignatures.map((c) => c.name),
    };
  } catch (error) {
    if (error instanceof NoteError) {
      return { ok: false, reason: error.reason, message: error.message };
    }
    throw error;
  }
}
