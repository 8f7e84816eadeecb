/**
 * Known answers pinning OUR version-1 byte format (README "Byte formats") for wrapDataKey and
 * encryptBody, with fixed keys and an injected IV source.
 *
 * The hex constants were produced independently of this package and of node:crypto, by
 * test/vectors/format-v1.py (Python `cryptography` AESGCM, layout and AAD built by hand from
 * the README table). A change to the layout, the AAD encoding, the labels or the version byte
 * changes them; that is a format break and needs a new ENVELOPE_VERSION.
 */
import { describe, expect, it } from "vitest";
import {
  decryptBody,
  ENVELOPE_VERSION,
  encryptBody,
  unwrapDataKey,
  wrapDataKey,
} from "../src/index.js";
import { fromHex, toHex, utf8 } from "./_helpers.js";

/** The injected IV source: byte i is 0xa0 + i (a0 a1 … ab for 12 bytes). */
const ivSource = (n: number) => Uint8Array.from({ length: n }, (_, i) => 0xa0 + i);

const MASTER_KEY = Uint8Array.from({ length: 32 }, (_, i) => i);
const DATA_KEY = new Uint8Array(32).fill(0x22);
const WRAPPED_HEX =
  "01a0a1a2a3a4a5a6a7a8a9aaabc43a5e0f67e9209d4047a5f12558e2fc528e7b32b095604ebe2c04a45d8957239becabca1febef00b5a6313d1b9a83c6";

const BODY_KEY = new Uint8Array(32).fill(0x33);
const BODY_CONTEXT = { userId: "user-a", memoryId: "memory-é" };
const BODY_IV_HEX = "a0a1a2a3a4a5a6a7a8a9aaab";
const BODY_CIPHERTEXT_HEX = "018116819ef1facde79f20524fbd442b1c687e6d65e656018e5ee7c0279c";

describe("version-1 byte format (known answers)", () => {
  it("writes version 1", () => {
    expect(ENVELOPE_VERSION).toBe(1);
  });

  it("wrapDataKey: version ‖ iv ‖ ciphertext ‖ tag under the labelled, length-framed AAD", () => {
    const wrapped = wrapDataKey(MASTER_KEY, DATA_KEY, "user-a", ivSource);
    expect(toHex(wrapped)).toBe(WRAPPED_HEX);
    expect(unwrapDataKey(MASTER_KEY, fromHex(WRAPPED_HEX), "user-a")).toEqual(DATA_KEY);
  });

  it("encryptBody: iv column and version ‖ ciphertext ‖ tag (UTF-8 byte lengths framed)", () => {
    const sealed = encryptBody(BODY_KEY, utf8("hello, memory"), BODY_CONTEXT, ivSource);
    expect(toHex(sealed.iv)).toBe(BODY_IV_HEX);
    expect(toHex(sealed.ciphertext)).toBe(BODY_CIPHERTEXT_HEX);
    const opened = decryptBody(
      BODY_KEY,
      { iv: fromHex(BODY_IV_HEX), ciphertext: fromHex(BODY_CIPHERTEXT_HEX) },
      BODY_CONTEXT,
    );
    expect(new TextDecoder().decode(opened)).toBe("hello, memory");
  });
});
