/**
 * Signed notes (C2SP signed-note "Format", "Signatures"): a text ending in a newline, a blank line,
 * then signature lines `— <key name> <base64(key id ‖ signature)>`. Parsing follows Go's
 * golang.org/x/mod/sumdb/note `Open`: the text ends at the LAST blank line, signatures by unknown
 * keys are kept aside unverified, a known key's signature that fails rejects the whole note, and a
 * note with no verified signature is rejected. docs/protocol.md §13.2 "Signed notes".
 * @module
 */
import { decodeBase64, encodeBase64 } from "./base64.js";
import { NoteError } from "./errors.js";
import { isValidKeyName, type NoteSigner, type NoteVerifier } from "./keys.js";

/** At most this many signature lines are read (the spec asks for at least 16; Go reads 100). */
export const MAX_SIGNATURES = 100;

const SIG_PREFIX = "\u2014 ";
const LONE_SURROGATE = /\p{Cs}/u;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Whether `text` holds an ASCII control character (below U+0020) other than newline, or a lone
 * surrogate (not encodable as UTF-8): what a signed note must not hold (C2SP signed-note "Format").
 */
export function hasForbiddenCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) {
      return true;
    }
  }
  return LONE_SURROGATE.test(text);
}

/** One signature line of a note. */
export interface NoteSignature {
  /** The key name. */
  readonly name: string;
  /** The key id, an unsigned 32-bit integer. */
  readonly keyId: number;
  /** The signature bytes after the key id (64 for Ed25519). */
  readonly signature: Uint8Array;
}

/** A parsed note: its text and its signature lines, none verified yet. */
export interface ParsedNote {
  /** The note text, including its final newline, without the blank line. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** A note whose signatures were checked against known keys. */
export interface OpenedNote extends ParsedNote {
  /** Signatures by known keys, each verified (at least one). */
  readonly verified: readonly NoteSignature[];
  /** Signatures by keys the caller does not know (ignored, as the spec requires). */
  readonly unverified: readonly NoteSignature[];
}

function asText(note: string | Uint8Array): string {
  if (typeof note === "string") {
    return note;
  }
  try {
    return decoder.decode(note);
  } catch {
    throw new NoteError("note_malformed", "a note must be valid UTF-8");
  }
}

/**
 * Checks a note text as signers see it: non-empty, ending in a newline, valid UTF-8, no control
 * character but newline.
 * @throws NoteError `note_malformed` otherwise.
 */
export function assertNoteText(text: string): void {
  if (!text.endsWith("\n") || hasForbiddenCharacter(text)) {
    throw new NoteError(
      "note_malformed",
      "a note text ends in a newline and holds no control character but newlines",
    );
  }
}

/**
 * Splits a signed note into its text and signature lines, without verifying anything.
 * @param note the note, as a string or its UTF-8 bytes.
 * @throws NoteError `note_malformed` when it is not a signed note (see the module comment), or
 *   holds more than {@link MAX_SIGNATURES} signatures.
 */
export function parseNote(note: string | Uint8Array): ParsedNote {
  const message = asText(note);
  if (hasForbiddenCharacter(message)) {
    throw new NoteError("note_malformed", "a note holds no control character but newlines");
  }
  const split = message.lastIndexOf("\n\n");
  if (split < 0) {
    throw new NoteError("note_malformed", "a signed note has a blank line before its signatures");
  }
  const text = message.slice(0, split + 1);
  const block = message.slice(split + 2);
  if (block === "" || !block.endsWith("\n")) {
    throw new NoteError("note_malformed", "a signed note ends with newline-terminated signatures");
  }
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) {
    throw new NoteError("note_malformed", `a note carries at most ${MAX_SIGNATURES} signatures`);
  }
  const signatures = lines.map((line): NoteSignature => {
    const space = line.indexOf(" ", SIG_PREFIX.length);
    const name = space < 0 ? "" : line.slice(SIG_PREFIX.length, space);
    const bytes = space < 0 ? null : decodeBase64(line.slice(space + 1));
    if (
      !line.startsWith(SIG_PREFIX) ||
      !isValidKeyName(name) ||
      bytes === null ||
      bytes.length < 5
    ) {
      throw new NoteError("note_malformed", `malformed signature line: ${JSON.stringify(line)}`);
    }
    const keyId = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
    return { name, keyId, signature: bytes.subarray(4) };
  });
  return { text, signatures };
}

/**
 * Opens a signed note against the keys the caller trusts: every signature by a known key (same
 * name AND key id) must verify, at least one must, signatures by other keys are returned as
 * `unverified` (C2SP signed-note "Signatures").
 * @param verifiers the trusted keys (e.g. `parseVerifierKey` of each key in `GET /info` logKeys).
 * @throws NoteError `note_malformed` (see {@link parseNote}); `note_signature_invalid` when a known
 *   key's signature fails or no known key signed the note.
 */
export function openNote(
  note: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
): OpenedNote {
  const parsed = parseNote(note);
  const textBytes = encoder.encode(parsed.text);
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  for (const sig of parsed.signatures) {
    const key = verifiers.find((v) => v.name === sig.name && v.keyId === sig.keyId);
    if (!key) {
      unverified.push(sig);
      continue;
    }
    if (verified.some((v) => v.name === sig.name && v.keyId === sig.keyId)) {
      continue;
    }
    if (!key.verify(textBytes, sig.signature)) {
      throw new NoteError(
        "note_signature_invalid",
        `the signature of ${sig.name} (key id ${sig.keyId.toString(16).padStart(8, "0")}) does not verify`,
      );
    }
    verified.push(sig);
  }
  if (verified.length === 0) {
    throw new NoteError("note_signature_invalid", "no signature by a known key");
  }
  return { ...parsed, verified, unverified };
}

/**
 * Signs `text` with each signer (Ed25519 over the text's UTF-8 bytes) and returns the signed note.
 * @throws NoteError `note_malformed` when `text` is not a note text (see {@link assertNoteText}).
 * @example signNote("hello\n", [signer]) // "hello\n\n— example.com/log <base64>\n"
 */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  assertNoteText(text);
  const bytes = encoder.encode(text);
  const lines = signers.map((s) => {
    const sig = new Uint8Array(4 + 64);
    new DataView(sig.buffer).setUint32(0, s.keyId, false);
    sig.set(s.sign(bytes), 4);
    return `${SIG_PREFIX}${s.name} ${encodeBase64(sig)}\n`;
  });
  return `${text}\n${lines.join("")}`;
}
