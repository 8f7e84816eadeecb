/**
 * A k-of-n witness policy (C2SP tlog-cosignature; tlog-witness "add-checkpoint"): a checkpoint is
 * accepted when the log signed it and at least k of the trusted witnesses cosigned it.
 * docs/protocol.md §13.6 "Witnesses".
 * @module
 */
import { type Checkpoint, openCheckpoint } from "./checkpoint.js";
import { cosignatureTime } from "./cosignature.js";
import { NoteError } from "./errors.js";
import type { NoteVerifier } from "./keys.js";
import { parseNote } from "./note.js";

/** One valid cosignature counted towards the policy. */
export interface CountedCosignature {
  /** The witness's key name. */
  readonly name: string;
  readonly keyId: number;
  /** When the witness cosigned, POSIX seconds. */
  readonly time: bigint;
}

/** A checkpoint that met the policy. */
export interface WitnessedCheckpoint {
  readonly checkpoint: Checkpoint;
  /** The checkpoint's note text. */
  readonly text: string;
  /** The valid cosignatures by distinct trusted witnesses, in note order (at least k). */
  readonly cosignatures: readonly CountedCosignature[];
}

/**
 * Opens a signed checkpoint and checks the witness policy: the log's signature verifies against
 * `logVerifiers` ({@link openCheckpoint}), then every cosignature by a trusted witness (same name
 * AND key id among `witnesses`, each made by `parseCosignerVerifierKey`) is checked, and at least
 * `k` distinct witnesses must have valid ones. Signatures by other keys are ignored.
 * @param k how many witness cosignatures are required, 0 ≤ k ≤ witnesses.length.
 * @throws RangeError when `k` is not an integer in 0..witnesses.length.
 * @throws NoteError `note_malformed` (not a note, not a checkpoint, another origin);
 *   `note_signature_invalid` (the log's signature, or a trusted witness's cosignature, does not
 *   verify); `witness_policy_unmet` (fewer than k trusted witnesses cosigned).
 */
export function openWitnessedCheckpoint(
  note: string,
  logVerifiers: readonly NoteVerifier[],
  witnesses: readonly NoteVerifier[],
  k: number,
  origin?: string,
): WitnessedCheckpoint {
  if (!Number.isInteger(k) || k < 0 || k > witnesses.length) {
    throw new RangeError(`the witness policy needs 0 <= k <= ${witnesses.length}, got ${k}`);
  }
  const { checkpoint, text } = openCheckpoint(note, logVerifiers, origin);
  const textBytes = new TextEncoder().encode(text);
  const cosignatures: CountedCosignature[] = [];
  for (const sig of parseNote(note).signatures) {
    const witness = witnesses.find((w) => w.name === sig.name && w.keyId === sig.keyId);
    if (!witness || cosignatures.some((c) => c.name === sig.name && c.keyId === sig.keyId)) {
      continue;
    }
    const time = cosignatureTime(sig.signature);
    if (time === null || !witness.verify(textBytes, sig.signature)) {
      throw new NoteError(
        "note_signature_invalid",
        `the cosignature of witness ${sig.name} does not verify`,
      );
    }
    cosignatures.push({ name: sig.name, keyId: sig.keyId, time });
  }
  if (cosignatures.length < k) {
    throw new NoteError(
      "witness_policy_unmet",
      `${cosignatures.length} trusted witness cosignature(s), the policy requires ${k}`,
    );
  }
  return { checkpoint, text, cosignatures };
}
