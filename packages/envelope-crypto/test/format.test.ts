/**
 * Known answers pinning OUR byte formats (README "Byte formats"): the version-2 wrapped data key
 * that wrapDataKey writes, the version-1 wrapped data key it wrote before key ids (still read),
 * and the version-1 sealed body of encryptBody, with fixed keys and an injected IV source.
 *
 * The hex constants were produced independently of this package and of node:crypto, by
 * test/vectors/format-v1.py and test/vectors/format-v2.py (Python `cryptography` AESGCM and
 * hashlib, layout and AAD built by hand from the README table). A change to the layout, the AAD
 * encoding, the labels or the version byte changes them; that is a format break and needs a new
 * version.
 */
import { describe, expect, it } from "vitest";
import {
  decryptBody,
  ENVELOPE_VERSION,
  encryptBody,
  masterKeyId,
  unwrapDataKey,
  WRAPPED_KEY_VERSION,
  wrapDataKey,
  wrappedKeyId,
} from "../src/index.js";
import { fromHex, toHex, utf8 } from "./_helpers.js";

/** The injected IV source: byte i is 0xa0 + i (a0 a1 … ab for 12 bytes). */
const ivSource = (n: number) => Uint8Array.from({ length: n }, (_, i) => 0xa0 + i);

const MASTER_KEY = Uint8Array.from({ length: 32 }, (_, i) => i);
const DATA_KEY = new Uint8Array(32).fill(0x22);
const WRAPPED_V1_HEX =
  "01a0a1a2a3a4a5a6a7a8a9aaabc43a5e0f67e9209d4047a5f12558e2fc528e7b32b095604ebe2c04a45d8957239becabca1febef00b5a6313d1b9a83c6";
const MASTER_KEY_ID = "630dcd2966c43366";
const WRAPPED_V2_HEX =
  "02630dcd2966c43366a0a1a2a3a4a5a6a7a8a9aaabc43a5e0f67e9209d4047a5f12558e2fc528e7b32b095604ebe2c04a45d8957233fba3099b42cfec2b3107beae96f7c10";

const BODY_KEY = new Uint8Array(32).fill(0x33);
const BODY_CONTEXT = { userId: "user-a", memoryId: "memory-é" };
const BODY_IV_HEX = "a0a1a2a3a4a5a6a7a8a9aaab";
const BODY_CIPHERTEXT_HEX = "018116819ef1facde79f20524fbd442b1c687e6d65e656018e5ee7c0279c";

describe("byte formats (known answers)", () => {
  it("writes version-2 wrapped keys and version-1 bodies", () => {
    expect(WRAPPED_KEY_VERSION).toBe(2);
    expect(ENVELOPE_VERSION).toBe(1);
  });

  it("masterKeyId: the first 8 bytes of SHA-256 of the key, hex", () => {
    expect(masterKeyId(MASTER_KEY)).toBe(MASTER_KEY_ID);
  });

  it("wrapDataKey: 0x02 ‖ key id ‖ iv ‖ ciphertext ‖ tag, the key id inside the AAD", () => {
    const wrapped = wrapDataKey(MASTER_KEY, DATA_KEY, "user-a", ivSource);
    expect(toHex(wrapped)).toBe(WRAPPED_V2_HEX);
    expect(wrappedKeyId(wrapped)).toBe(MASTER_KEY_ID);
    expect(unwrapDataKey(MASTER_KEY, fromHex(WRAPPED_V2_HEX), "user-a")).toEqual(DATA_KEY);
  });

  it("unwrapDataKey still opens a version-1 wrap (0x01 ‖ iv ‖ ciphertext ‖ tag, no key id)", () => {
    expect(wrappedKeyId(fromHex(WRAPPED_V1_HEX))).toBeNull();
    expect(unwrapDataKey(MASTER_KEY, fromHex(WRAPPED_V1_HEX), "user-a")).toEqual(DATA_KEY);
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
