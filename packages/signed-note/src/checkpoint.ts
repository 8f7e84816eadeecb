/**
 * Checkpoints (C2SP tlog-checkpoint): the note text `<origin>\n<size>\n<base64 root>\n` followed by
 * optional extension lines, for an RFC 6962 / RFC 9162 SHA-256 tree. Our user checkpoints use the
 * origin `<LOG_ORIGIN>/users/<owner base58>` and are signed under the key name LOG_ORIGIN
 * (docs/protocol.md §13.3 "User checkpoints").
 * @module
 */
import { decodeBase64, encodeBase64 } from "./base64.js";
import { NoteError } from "./errors.js";
import type { NoteVerifier } from "./keys.js";
import { hasForbiddenCharacter, openNote } from "./note.js";

/** A checkpoint: the state of one log. */
export interface Checkpoint {
  /** The log's origin (a schema-less URL). */
  readonly origin: string;
  /** The number of leaves, 0 ≤ size ≤ 2^53 − 1. */
  readonly size: number;
  /** The 32-byte RFC 9162 root hash of the first `size` leaves. */
  readonly rootHash: Uint8Array;
  /** Extension lines, in order (none in ours). */
  readonly extensions: readonly string[];
}

/** A checkpoint line: non-empty, no newline or other control character. */
function isLine(line: string): boolean {
  return line !== "" && !line.includes("\n") && !hasForbiddenCharacter(line);
}

/**
 * The note text of a checkpoint: origin, size and base64 root, then extension lines, each line
 * ending in `\n` (C2SP tlog-checkpoint "Note text").
 * @throws NoteError `note_malformed` on an empty or multi-line origin or extension, a size that is
 *   not a safe non-negative integer, or a root that is not 32 bytes.
 * @example formatCheckpoint({ origin: "example.com/log", size: 0, rootHash: EMPTY_ROOT, extensions: [] })
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash, extensions } = checkpoint;
  if (!isLine(origin) || extensions.some((line) => !isLine(line))) {
    throw new NoteError("note_malformed", "origin and extension lines are non-empty single lines");
  }
  if (!Number.isSafeInteger(size) || size < 0 || rootHash.length !== 32) {
    throw new NoteError(
      "note_malformed",
      "a checkpoint has a safe integer size and a 32-byte root",
    );
  }
  return [origin, String(size), encodeBase64(rootHash), ...extensions]
    .map((l) => `${l}\n`)
    .join("");
}

/**
 * Parses a checkpoint's note text (unsigned: the text part of a signed note).
 * @throws NoteError `note_malformed` when the text is not origin, decimal size without leading
 *   zeros (≤ 2^53 − 1), base64 32-byte root and non-empty extension lines, each ending in `\n`.
 */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split("\n");
  const last = lines.pop();
  const [origin, sizeText, rootText, ...extensions] = lines;
  const rootHash = rootText === undefined ? null : decodeBase64(rootText);
  const ok =
    last === "" &&
    origin !== undefined &&
    isLine(origin) &&
    sizeText !== undefined &&
    /^(0|[1-9][0-9]{0,15})$/.test(sizeText) &&
    Number.isSafeInteger(Number(sizeText)) &&
    rootHash !== null &&
    rootHash.length === 32 &&
    extensions.every((line) => isLine(line));
  if (!ok) {
    throw new NoteError("note_malformed", "not a checkpoint: origin, size and root lines expected");
  }
  return { origin, size: Number(sizeText), rootHash, extensions };
}

/**
 * Opens a signed checkpoint: verifies the note against `verifiers` ({@link openNote}), parses its
 * text and, when `origin` is given, requires that origin.
 * @returns the checkpoint and the opened note.
 * @throws NoteError `note_malformed` (not a note, not a checkpoint, another origin);
 *   `note_signature_invalid` (see {@link openNote}).
 */
export function openCheckpoint(
  note: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
  origin?: string,
): { checkpoint: Checkpoint; text: string } {
  const opened = openNote(note, verifiers);
  const checkpoint = parseCheckpoint(opened.text);
  if (origin !== undefined && checkpoint.origin !== origin) {
    throw new NoteError(
      "note_malformed",
      `the checkpoint's origin is ${JSON.stringify(checkpoint.origin)}, expected ${JSON.stringify(origin)}`,
    );
  }
  return { checkpoint, text: opened.text };
}

/**
 * The origin of an owner's log: `<logOrigin>/users/<owner base58>` (docs/protocol.md §13.3
 * "User checkpoints").
 */
export function userLogOrigin(logOrigin: string, owner: string): string {
  return `${logOrigin}/users/${owner}`;
}
