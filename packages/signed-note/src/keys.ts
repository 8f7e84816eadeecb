/**
 * Signed-note keys (C2SP signed-note "Signatures", "Ed25519 signatures"): key names, key ids, the
 * verifier key `<name>+<hex key id>+<base64(type ‖ public key)>` and the signer key
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(type ‖ seed)>` (both the formats of Go's
 * golang.org/x/mod/sumdb/note). Ed25519 (type 0x01) only; docs/protocol.md §13.1 "The log key".
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { decodeBase64, encodeBase64 } from "./base64.js";
import { NoteError } from "./errors.js";

// Synchronous Ed25519 needs a SHA-512; @noble/hashes' is the audited one every package here uses.
ed.hashes.sha512 ??= sha512;

/** Signature type of Ed25519 signed-note signatures (C2SP signed-note "Signature types"). */
export const SIG_TYPE_ED25519 = 0x01;

const encoder = new TextEncoder();

/**
 * Whether `name` is a valid key name: non-empty, no Unicode space (White_Space, as Go's
 * `unicode.IsSpace`), no `+` (C2SP signed-note "Format"; Go note `isValidName`), and, so that a
 * note carrying it stays valid, no control character and no lone surrogate.
 */
export function isValidKeyName(name: string): boolean {
  return name !== "" && !/[\p{White_Space}\p{Cc}\p{Cs}+]/u.test(name);
}

/**
 * The key id `SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]` as an unsigned 32-bit integer
 * (big-endian), C2SP signed-note "Signatures".
 * @param typedKey the signature type byte followed by the public key.
 */
export function keyId(name: string, typedKey: Uint8Array): number {
  const nameBytes = encoder.encode(`${name}\n`);
  const input = new Uint8Array(nameBytes.length + typedKey.length);
  input.set(nameBytes);
  input.set(typedKey, nameBytes.length);
  const digest = sha256(input);
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0, false);
}

/** An Ed25519 note key's public half. */
export interface NoteVerifier {
  /** The key name (the log's origin for our log key). */
  readonly name: string;
  /** The key id, an unsigned 32-bit integer. */
  readonly keyId: number;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The verifier key string `<name>+<hex id>+<base64(0x01 ‖ key)>`. */
  readonly vkey: string;
  /** Whether `signature` (64 bytes, without the key id) is this key's Ed25519 signature of `message`. */
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** An Ed25519 note key with its secret half. */
export interface NoteSigner extends NoteVerifier {
  /** The 64-byte RFC 8032 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
  /** The signer key string `PRIVATE+KEY+<name>+<hex id>+<base64(0x01 ‖ seed)>` (a secret). */
  readonly skey: string;
}

/** A key id as 8 lowercase hex digits, as key strings spell it. */
export function hex8(id: number): string {
  return id.toString(16).padStart(8, "0");
}

/** `type ‖ key`: the typed key a key id and a key string are made of (C2SP signed-note). */
export function typed(key: Uint8Array, type = SIG_TYPE_ED25519): Uint8Array {
  const out = new Uint8Array(1 + key.length);
  out[0] = type;
  out.set(key, 1);
  return out;
}

function verifierOf(name: string, publicKey: Uint8Array): NoteVerifier {
  const typedKey = typed(publicKey);
  const id = keyId(name, typedKey);
  return {
    name,
    keyId: id,
    publicKey,
    vkey: `${name}+${hex8(id)}+${encodeBase64(typedKey)}`,
    verify: (message, signature) =>
      signature.length === 64 && ed.verify(signature, message, publicKey, { zip215: false }),
  };
}

/**
 * Splits `text` at its first two `+` into three parts (a name and a hex id hold no `+`; base64
 * may), as Go note's `chop` does.
 * @throws NoteError `note_malformed` when there are fewer than two `+`.
 */
function threeParts(text: string, what: string): [string, string, string] {
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  if (second < 0) {
    throw new NoteError("note_malformed", `${what} must be <name>+<hex key id>+<base64 key>`);
  }
  return [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
}

/**
 * Splits a key string `<name>+<hex key id>+<base64(type ‖ 32 bytes)>` (a verifier key, or a signer
 * key without its `PRIVATE+KEY+` prefix) into its name and the 32 bytes after the type byte. The
 * caller checks the key id by rebuilding the string.
 * @param type the signature type byte the key must carry (0x01 here, 0x04 for cosigners).
 * @throws NoteError `note_malformed` on another form, another type or another length.
 */
export function checkedKey(
  text: string,
  what: string,
  type = SIG_TYPE_ED25519,
): { name: string; key: Uint8Array } {
  const [name, idHex, keyBase64] = threeParts(text, what);
  const key = decodeBase64(keyBase64);
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/.test(idHex) || key === null) {
    throw new NoteError("note_malformed", `${what}: malformed name, key id or base64`);
  }
  if (key.length !== 33 || key[0] !== type) {
    throw new NoteError(
      "note_malformed",
      `${what}: not a type 0x${type.toString(16).padStart(2, "0")} Ed25519 key`,
    );
  }
  return { name, key: key.subarray(1) };
}

/**
 * Parses a verifier key `<name>+<hex key id>+<base64(0x01 ‖ 32-byte public key)>`. The key id must
 * be the one the name and key give (C2SP signed-note "Signatures"; Go note `NewVerifier`).
 * @throws NoteError `note_malformed` on any other form, another type or a wrong key id.
 * @example parseVerifierKey("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k").keyId // 0x530d903a
 */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const { name, key } = checkedKey(vkey, "verifier key");
  const verifier = verifierOf(name, key);
  if (verifier.vkey !== vkey) {
    throw new NoteError("note_malformed", "verifier key: the key id does not match name and key");
  }
  return verifier;
}

/**
 * The signer of a 32-byte Ed25519 seed (RFC 8032 §5.1.5 secret key) under key name `name`.
 * @throws NoteError `note_malformed` on an invalid name or a seed that is not 32 bytes.
 */
export function signerFromSeed(name: string, seed: Uint8Array): NoteSigner {
  if (!isValidKeyName(name) || seed.length !== 32) {
    throw new NoteError("note_malformed", "a signer needs a valid key name and a 32-byte seed");
  }
  const secret = Uint8Array.from(seed);
  const verifier = verifierOf(name, ed.getPublicKey(secret));
  return {
    ...verifier,
    sign: (message) => ed.sign(message, secret),
    skey: `PRIVATE+KEY+${name}+${hex8(verifier.keyId)}+${encodeBase64(typed(secret))}`,
  };
}

/**
 * Parses a signer key `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 ‖ 32-byte seed)>` (Go note
 * `NewSigner`'s format; the file at LOG_SIGNING_KEY_PATH holds one line of it).
 * @throws NoteError `note_malformed` on any other form or a key id that does not match.
 */
export function parseSignerKey(skey: string): NoteSigner {
  const prefix = "PRIVATE+KEY+";
  if (!skey.startsWith(prefix)) {
    throw new NoteError("note_malformed", "signer key must start with PRIVATE+KEY+");
  }
  const { name, key } = checkedKey(skey.slice(prefix.length), "signer key");
  const signer = signerFromSeed(name, key);
  if (signer.skey !== skey) {
    throw new NoteError("note_malformed", "signer key: the key id does not match name and key");
  }
  return signer;
}

/**
 * A new random Ed25519 signer under `name` (the seed from the platform's CSPRNG,
 * `crypto.getRandomValues`).
 * @throws NoteError `note_malformed` on an invalid name.
 */
export function generateSigner(name: string): NoteSigner {
  return signerFromSeed(name, ed.utils.randomSecretKey());
}
