/**
 * The cursor seal (docs/protocol.md §1.6 "Content limits and pagination") checked byte for byte
 * against node:crypto's HKDF (RFC 5869) and HMAC-SHA-256 (RFC 2104), and refusing every changed,
 * truncated or extended cursor.
 */
import { createHmac, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CURSOR_TAG_BYTES, cursorKey, openCursor, sealCursor } from "../src/cursor-seal.js";

const SECRET = "test-secret-that-is-long-enough-0123456789";
const INNER = Buffer.from(JSON.stringify(["memories", "2026-11-28T00:00:00.000Z", "id"])).toString(
  "base64url",
);

describe("cursor seal", () => {
  it("is base64url(utf8(inner) ‖ HMAC-SHA-256(HKDF-SHA-256(secret, info svc/cursor/v1), inner)[0..16))", () => {
    const key = Buffer.from(hkdfSync("sha256", SECRET, Buffer.alloc(0), "svc/cursor/v1", 32));
    expect(Buffer.from(cursorKey(SECRET))).toEqual(key);
    const tag = createHmac("sha256", key).update(INNER).digest().subarray(0, CURSOR_TAG_BYTES);
    const expected = Buffer.concat([Buffer.from(INNER), tag]).toString("base64url");
    expect(sealCursor(cursorKey(SECRET), INNER)).toBe(expected);
    expect(openCursor(cursorKey(SECRET), expected)).toBe(INNER);
  });

  it("refuses every changed byte, truncation, extension and another secret", () => {
    const key = cursorKey(SECRET);
    const bytes = Buffer.from(sealCursor(key, INNER), "base64url");
    for (let index = 0; index < bytes.length; index++) {
      const changed = Buffer.from(bytes);
      changed[index] = (changed[index] as number) ^ 0x01;
      expect(openCursor(key, changed.toString("base64url")), `byte ${index}`).toBeNull();
    }
    for (let length = 0; length < bytes.length; length++) {
      expect(openCursor(key, bytes.subarray(0, length).toString("base64url"))).toBeNull();
    }
    expect(openCursor(key, Buffer.concat([bytes, Buffer.of(0)]).toString("base64url"))).toBeNull();
    const other = cursorKey(`${SECRET}-rotated`);
    expect(openCursor(other, sealCursor(key, INNER))).toBeNull();
    expect(openCursor(other, sealCursor(other, INNER))).toBe(INNER);
  });

  it("refuses text that is not canonical unpadded base64url, too long, or not UTF-8 inside", () => {
    const key = cursorKey(SECRET);
    const sealed = sealCursor(key, INNER);
    for (const text of [
      "",
      `${sealed}=`,
      `${sealed.slice(0, 4)}+${sealed.slice(5)}`,
      "A".repeat(513),
    ]) {
      expect(openCursor(key, text), text).toBeNull();
    }
    const invalidUtf8 = Buffer.of(0xff, 0xfe);
    const tag = createHmac("sha256", Buffer.from(key)).update(invalidUtf8).digest().subarray(0, 16);
    expect(openCursor(key, Buffer.concat([invalidUtf8, tag]).toString("base64url"))).toBeNull();
  });
});
