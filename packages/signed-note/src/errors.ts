/**
 * Typed errors of signed notes and checkpoints (C2SP signed-note, tlog-checkpoint). The reasons are
 * the verifier's failure reasons of docs/protocol.md §1.4 "Error codes"; apps map them at their edge.
 * @module
 */

/**
 * Why a note was refused:
 * - `note_malformed`: not a signed note (no blank line before the signatures, a control character,
 *   invalid UTF-8, a bad signature line), or a note text that is not a checkpoint of the expected
 *   form, or a malformed key.
 * - `note_signature_invalid`: a signature by a known key that does not verify, or no signature by
 *   any known key.
 * - `witness_policy_unmet`: fewer trusted witnesses cosigned a checkpoint than the policy requires.
 */
export type NoteErrorReason = "note_malformed" | "note_signature_invalid" | "witness_policy_unmet";

/** A note, key or checkpoint that is malformed or not signed as required (see `reason`). */
export class NoteError extends Error {
  readonly reason: NoteErrorReason;

  constructor(reason: NoteErrorReason, message: string) {
    super(message);
    this.name = "NoteError";
    this.reason = reason;
  }
}
