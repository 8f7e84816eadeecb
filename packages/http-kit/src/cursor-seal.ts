/**
 * Sealed pagination cursors (docs/protocol.md §1.6 "Content limits and pagination"): the APIs
 * hand out a list's inner cursor with an HMAC-SHA-256 tag (RFC 2104, truncated to 16 bytes as
 * RFC 2104 §5 allows) under a key derived from `JWT_SECRET` with HKDF-SHA-256 (RFC 5869, info
 * `svc/cursor/v1`), so a cursor the service did not issue is refused before it reaches a query.
 * Wire format: `base64url(utf8(inner) ‖ tag16)`, no padding.
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

/** The HKDF `info` of the cursor key (docs/protocol.md §1.6). */
export const CURSOR_KEY_INFO = "svc/cursor/v1";

/** Bytes of the truncated HMAC-SHA-256 tag a sealed cursor ends with. */
export const CURSOR_TAG_BYTES = 16;

/** Longest sealed cursor the APIs accept, in characters (docs/protocol.md §1.6). */
export const SEALED_CURSOR_MAX_CHARS = 512;

/** A 32-byte HMAC key for cursors, from {@link cursorKey}. */
export type CursorKey = Uint8Array & { readonly __cursorKey: true };

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The cursor key of a deployment: HKDF-SHA-256 (RFC 5869) of the UTF-8 `secret` (`JWT_SECRET`),
 * no salt, info {@link CURSOR_KEY_INFO}, 32 bytes. Rotating the secret invalidates open cursors.
 * @param secret the JWT secret (at least 32 characters, checked by the app's configuration).
 */
export function cursorKey(secret: string): CursorKey {
  return hkdf(
    sha256,
    encoder.encode(secret),
    undefined,
    encoder.encode(CURSOR_KEY_INFO),
    32,
  ) as CursorKey;
}

function tagOf(key: CursorKey, payload: Uint8Array): Uint8Array {
  return hmac(sha256, key, payload).subarray(0, CURSOR_TAG_BYTES);
}

/**
 * Seals a list's inner cursor for the wire: `base64url(utf8(cursor) ‖ HMAC-SHA-256(key, utf8(cursor))[0..16))`.
 * @param key from {@link cursorKey}.
 * @param cursor the inner cursor a query issued (any string).
 * @returns the opaque cursor the API answers as `nextCursor`.
 */
export function sealCursor(key: CursorKey, cursor: string): string {
  const payload = encoder.encode(cursor);
  const sealed = new Uint8Array(payload.length + CURSOR_TAG_BYTES);
  sealed.set(payload);
  sealed.set(tagOf(key, payload), payload.length);
  return Buffer.from(sealed).toString("base64url");
}

/**
 * Opens a cursor of {@link sealCursor}: checks its form (1–{@link SEALED_CURSOR_MAX_CHARS}
 * characters of `[A-Za-z0-9_-]`) and its tag in constant time.
 * @param key from {@link cursorKey}.
 * @param text the `cursor` a client sent.
 * @returns the inner cursor, or null when `text` was not sealed under `key` (forged, tampered,
 *   truncated, or sealed under another `JWT_SECRET`).
 */
export function openCursor(key: CursorKey, text: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length > SEALED_CURSOR_MAX_CHARS) {
    return null;
  }
  const sealed = Buffer.from(text, "base64url");
  if (sealed.length <= CURSOR_TAG_BYTES || sealed.toString("base64url") !== text) {
    return null;
  }
  const payload = sealed.subarray(0, sealed.length - CURSOR_TAG_BYTES);
  const tag = sealed.subarray(sealed.length - CURSOR_TAG_BYTES);
  if (!timingSafeEqual(tag, tagOf(key, payload))) {
    return null;
  }
  try {
    return decoder.decode(payload);
  } catch {
    return null;
  }
}
