/**
 * The envelope formats of wrapped data keys and sealed bodies: the version bytes, the
 * associated-data (AAD) encoding, and argument checks. Internal.
 *
 * AAD = label ‖ 0x00 ‖ version(1) ‖ for each field: u32be(UTF-8 byte length) ‖ UTF-8 bytes.
 * The labels are distinct and each is followed by 0x00 (so neither is a prefix of the other); the fields are
 * length-prefixed; so no two (label, version, fields) tuples share an encoding.
 * @module
 */
import { DecryptionError } from "./errors.js";

/** The format version written as the first byte of every sealed body. */
export const ENVELOPE_VERSION = 1;

/**
 * The format version written as the first byte of every wrapped data key: 2, which names the
 * master key it is wrapped under. Version 1 (no key id) is still read.
 */
export const WRAPPED_KEY_VERSION = 2;

/** AAD header (label ‖ 0x00 ‖ version) of a version-1 wrapped data key (read only). */
export const DATA_KEY_AAD_V1 = aadHeader("svc/envelope/data-key", 1);
/** AAD header (label ‖ 0x00 ‖ version) of a version-2 wrapped data key. */
export const DATA_KEY_AAD_V2 = aadHeader("svc/envelope/data-key", WRAPPED_KEY_VERSION);
/** AAD header (label ‖ 0x00 ‖ version) of a sealed memory body. */
export const BODY_AAD = aadHeader("svc/envelope/body", ENVELOPE_VERSION);
/** Version of a sealed recall segment (its format and its AAD). */
export const SEGMENT_VERSION = 1;
/** AAD header (label ‖ 0x00 ‖ version) of a sealed recall segment. */
export const SEGMENT_AAD = aadHeader("svc/envelope/segment", SEGMENT_VERSION);

/** Version of a sealed memory vector (its AAD). */
export const VECTOR_VERSION = 1;
/** AAD header (label ‖ 0x00 ‖ version) of a sealed memory vector. */
export const VECTOR_AAD = aadHeader("svc/envelope/vector", VECTOR_VERSION);

/** Version of a sealed recall vector segment (its AAD). */
export const VECTOR_SEGMENT_VERSION = 1;
/** AAD header (label ‖ 0x00 ‖ version) of a sealed recall vector segment. */
export const VECTOR_SEGMENT_AAD = aadHeader("svc/envelope/vector-segment", VECTOR_SEGMENT_VERSION);

/** Version of a sealed grant query (its format and its AAD). */
export const GRANT_QUERY_VERSION = 1;
/** AAD header (label ‖ 0x00 ‖ version) of a sealed capability-grant search query. */
export const GRANT_QUERY_AAD = aadHeader("svc/envelope/grant-query", GRANT_QUERY_VERSION);

/** A lone UTF-16 surrogate: it would encode as U+FFFD and collide with other strings. */
const LONE_SURROGATE = /\p{Cs}/u;

function aadHeader(label: string, version: number): Uint8Array {
  const header = new Uint8Array(label.length + 2);
  header.set(Buffer.from(label, "latin1"));
  header[label.length + 1] = version;
  return header;
}

/**
 * header ‖ (u32be UTF-8 length ‖ UTF-8 bytes) per field, in one allocation.
 * Preconditions: `header` is one of the AAD headers above; the fields passed `checkField`.
 */
export function encodeAad(header: Uint8Array, ...fields: string[]): Uint8Array {
  let size = header.length;
  for (const field of fields) {
    size += 4 + Buffer.byteLength(field, "utf8");
  }
  const out = Buffer.allocUnsafe(size);
  out.set(header, 0);
  let offset = header.length;
  for (const field of fields) {
    const length = Buffer.byteLength(field, "utf8");
    offset = out.writeUInt32BE(length, offset);
    offset += out.write(field, offset, "utf8");
  }
  return out;
}

/**
 * Checks the version byte of a sealed body.
 * @throws DecryptionError("unsupported_version") for any version this code cannot open.
 */
export function checkVersion(version: number | undefined): void {
  if (version !== ENVELOPE_VERSION) {
    throw new DecryptionError("unsupported_version", `unsupported envelope version ${version}`);
  }
}

/**
 * Checks that `bytes` is a Uint8Array of exactly `length` bytes (a key or an injected random
 * source's output).
 * @throws TypeError naming `name` otherwise (programmer misuse, not bad stored data).
 */
export function checkBytes(bytes: unknown, length: number, name: string): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new TypeError(`${name} must be a Uint8Array of ${length} bytes`);
  }
  return bytes;
}

/**
 * Checks that a context field is a well-formed string.
 * @throws TypeError naming `name` when it is not a string or holds a lone surrogate.
 */
export function checkField(value: unknown, name: string): string {
  if (typeof value !== "string" || LONE_SURROGATE.test(value)) {
    throw new TypeError(`${name} must be a well-formed string`);
  }
  return value;
}
