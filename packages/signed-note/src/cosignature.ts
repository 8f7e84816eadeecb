/**
 * Witness cosignatures (C2SP tlog-cosignature "Format", "Ed25519 signed message"): the note
 * signature of type 0x04, whose key id is `SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4]` and whose
 * signature bytes are `timestamp (u64 big-endian, POSIX seconds) ‖ Ed25519 signature` over
 * `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's note text. A cosigner is a
 * {@link NoteVerifier}, so `openNote` checks cosignatures like any other signature.
 * docs/protocol.md §13.6 "Witnesses".
 * @module
 */
import * as ed from "@noble/ed25519";
import { encodeBase64 } from "./base64.js";
import { NoteError } from "./errors.js";
import { checkedKey, hex8, isValidKeyName, keyId, type NoteVerifier, typed } from "./keys.js";
import { assertNoteText } from "./note.js";

/** Signature type of timestamped Ed25519 cosignatures (C2SP signed-note "Signature types"). */
export const SIG_TYPE_COSIGNATURE_V1 = 0x04;

/** The largest timestamp a cosignature may carry, 2^63 − 1 (C2SP tlog-cosignature "Format"). */
export const MAX_COSIGNATURE_TIME = 2n ** 63n - 1n;

const encoder = new TextEncoder();
const SIG_PREFIX = "\u2014 ";

/** A witness key with its secret half. */
export interface Cosigner extends NoteVerifier {
  /**
   * The signature line `— <name> <base64(key id ‖ time ‖ signature)>\n` cosigning the checkpoint
   * note text `text` at `time` (POSIX seconds, a safe non-negative integer).
   * @throws NoteError `note_malformed` when `text` is not a note text or `time` is not such an integer.
   */
  cosign(text: string, time: number): string;
  /** The signer key `PRIVATE+KEY+<name>+<hex id>+<base64(0x04 ‖ seed)>` (a secret). */
  readonly skey: string;
}

/**
 * The message a cosignature signs: `cosignature/v1\ntime <time>\n` then the checkpoint's note text
 * (with its final newline, without signatures), as UTF-8.
 * @param time POSIX seconds, 0 ≤ time ≤ 2^63 − 1 (a bigint or a safe integer).
 * @throws NoteError `note_malformed` on a time out of range.
 */
export function cosignatureMessage(text: string, time: bigint | number): Uint8Array {
  return signedMessage(encoder.encode(text), time);
}

function signedMessage(text: Uint8Array, time: bigint | number): Uint8Array {
  const t = typeof time === "bigint" ? time : Number.isSafeInteger(time) ? BigInt(time) : -1n;
  if (t < 0n || t > MAX_COSIGNATURE_TIME) {
    throw new NoteError("note_malformed", "a cosignature time is an integer in 0..2^63-1");
  }
  const header = encoder.encode(`cosignature/v1\ntime ${t}\n`);
  const out = new Uint8Array(header.length + text.length);
  out.set(header);
  out.set(text, header.length);
  return out;
}

/**
 * The timestamp of a cosignature's signature bytes (after the key id): the first 8 bytes,
 * big-endian.
 * @returns the POSIX seconds, or null when the bytes are not 8 + 64 long.
 */
export function cosignatureTime(signature: Uint8Array): bigint | null {
  if (signature.length !== 72) {
    return null;
  }
  return new DataView(signature.buffer, signature.byteOffset, 8).getBigUint64(0, false);
}

function cosignerVerifierOf(name: string, publicKey: Uint8Array): NoteVerifier {
  const typedKey = typed(publicKey, SIG_TYPE_COSIGNATURE_V1);
  const id = keyId(name, typedKey);
  return {
    name,
    keyId: id,
    publicKey,
    vkey: `${name}+${hex8(id)}+${encodeBase64(typedKey)}`,
    verify: (message, signature) => {
      const time = cosignatureTime(signature);
      if (time === null || time > MAX_COSIGNATURE_TIME) {
        return false;
      }
      return ed.verify(signature.subarray(8), signedMessage(message, time), publicKey, {
        zip215: false,
      });
    },
  };
}

/**
 * Parses a witness verifier key `<name>+<hex key id>+<base64(0x04 ‖ 32-byte Ed25519 public key)>`
 * (C2SP tlog-cosignature "Format"). The verifier's `verify(text bytes, time ‖ signature)` checks
 * a cosignature of that note text.
 * @throws NoteError `note_malformed` on another form, another type or a key id that does not match.
 * @example parseCosignerVerifierKey("witness.example/w1+1d0aa4c2+BK…").keyId
 */
export function parseCosignerVerifierKey(vkey: string): NoteVerifier {
  const { name, key } = checkedKey(vkey, "witness verifier key", SIG_TYPE_COSIGNATURE_V1);
  const verifier = cosignerVerifierOf(name, key);
  if (verifier.vkey !== vkey) {
    throw new NoteError(
      "note_malformed",
      "witness verifier key: the key id does not match name and key",
    );
  }
  return verifier;
}

/**
 * The cosigner of a 32-byte Ed25519 seed under key name `name` (the witness's name).
 * @throws NoteError `note_malformed` on an invalid name or a seed that is not 32 bytes.
 */
export function cosignerFromSeed(name: string, seed: Uint8Array): Cosigner {
  if (!isValidKeyName(name) || seed.length !== 32) {
    throw new NoteError("note_malformed", "a cosigner needs a valid key name and a 32-byte seed");
  }
  const secret = Uint8Array.from(seed);
  const verifier = cosignerVerifierOf(name, ed.getPublicKey(secret));
  return {
    ...verifier,
    cosign: (text, time) => {
      assertNoteText(text);
      const signature = ed.sign(cosignatureMessage(text, time), secret);
      const bytes = new Uint8Array(4 + 8 + 64);
      const view = new DataView(bytes.buffer);
      view.setUint32(0, verifier.keyId, false);
      view.setBigUint64(4, BigInt(time), false);
      bytes.set(signature, 12);
      return `${SIG_PREFIX}${name} ${encodeBase64(bytes)}\n`;
    },
    skey: `PRIVATE+KEY+${name}+${hex8(verifier.keyId)}+${encodeBase64(typed(secret, SIG_TYPE_COSIGNATURE_V1))}`,
  };
}

/**
 * Parses a witness signer key `PRIVATE+KEY+<name>+<hex key id>+<base64(0x04 ‖ 32-byte seed)>`
 * (the signer-key format of docs/protocol.md §13.1 "The log key" with type 0x04; the witness's
 * WITNESS_KEY_PATH file holds one line of it).
 * @throws NoteError `note_malformed` on any other form or a key id that does not match.
 */
export function parseCosignerKey(skey: string): Cosigner {
  const prefix = "PRIVATE+KEY+";
  if (!skey.startsWith(prefix)) {
    throw new NoteError("note_malformed", "witness signer key must start with PRIVATE+KEY+");
  }
  const { name, key } = checkedKey(
    skey.slice(prefix.length),
    "witness signer key",
    SIG_TYPE_COSIGNATURE_V1,
  );
  const cosigner = cosignerFromSeed(name, key);
  if (cosigner.skey !== skey) {
    throw new NoteError(
      "note_malformed",
      "witness signer key: the key id does not match name and key",
    );
  }
  return cosigner;
}

/**
 * A new random witness key under `name` (seed from `crypto.getRandomValues`).
 * @throws NoteError `note_malformed` on an invalid name.
 */
export function generateCosigner(name: string): Cosigner {
  return cosignerFromSeed(name, ed.utils.randomSecretKey());
}
