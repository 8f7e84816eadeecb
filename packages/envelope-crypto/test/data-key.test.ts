/**
 * Data keys and their wrapping under the master key (docs/protocol.md §4.2 "Keys"): round trip,
 * binding to userId, master key and key id, every flipped bit, truncation, unknown versions,
 * version-1 wraps from before key ids, misuse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  generateDataKey,
  masterKeyId,
  unwrapDataKey,
  wrapDataKey,
  wrappedKeyId,
} from "../src/index.js";
import { catchDecryptionError, flipBit, wrapVersionOne } from "./_helpers.js";

const masterKey = generateDataKey();

describe("generateDataKey", () => {
  it("returns 32 fresh random bytes", () => {
    const a = generateDataKey();
    const b = generateDataKey();
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.length).toBe(32);
    expect(a).not.toEqual(b);
  });

  it("uses the injected source and checks its output length", () => {
    expect(generateDataKey((n) => new Uint8Array(n).fill(7))).toEqual(new Uint8Array(32).fill(7));
    expect(() => generateDataKey(() => new Uint8Array(31))).toThrow(TypeError);
  });
});

describe("wrapDataKey / unwrapDataKey", () => {
  it("round-trips to 69 bytes: version 2, the master key id, a fresh IV each time", () => {
    const dek = generateDataKey();
    const a = wrapDataKey(masterKey, dek, "user-a");
    const b = wrapDataKey(masterKey, dek, "user-a");
    expect(a.length).toBe(69);
    expect(a[0]).toBe(2);
    expect(Buffer.from(a.subarray(1, 9)).toString("hex")).toBe(masterKeyId(masterKey));
    expect(wrappedKeyId(a)).toBe(masterKeyId(masterKey));
    expect(a.subarray(9, 21)).not.toEqual(b.subarray(9, 21));
    expect(unwrapDataKey(masterKey, a, "user-a")).toEqual(dek);
    expect(unwrapDataKey(masterKey, b, "user-a")).toEqual(dek);
  });

  it("does not open for another user or under another master key", () => {
    const wrapped = wrapDataKey(masterKey, generateDataKey(), "user-a");
    expect(catchDecryptionError(() => unwrapDataKey(masterKey, wrapped, "user-b")).code).toBe(
      "authentication_failed",
    );
    expect(catchDecryptionError(() => unwrapDataKey(masterKey, wrapped, "")).code).toBe(
      "authentication_failed",
    );
    expect(
      catchDecryptionError(() => unwrapDataKey(generateDataKey(), wrapped, "user-a")).code,
    ).toBe("authentication_failed");
  });

  it("rejects every flipped bit (version byte: unsupported_version; others: authentication_failed)", () => {
    const wrapped = wrapDataKey(masterKey, generateDataKey(), "user-a");
    for (let bit = 0; bit < wrapped.length * 8; bit++) {
      const error = catchDecryptionError(() =>
        unwrapDataKey(masterKey, flipBit(wrapped, bit), "user-a"),
      );
      expect(error.code).toBe(bit < 8 ? "unsupported_version" : "authentication_failed");
    }
  });

  it("rejects every truncation and an extension as malformed", () => {
    const wrapped = wrapDataKey(masterKey, generateDataKey(), "user-a");
    for (let length = 0; length < wrapped.length; length++) {
      const error = catchDecryptionError(() =>
        unwrapDataKey(masterKey, wrapped.subarray(0, length), "user-a"),
      );
      expect(error.code).toBe("malformed");
    }
    const longer = new Uint8Array(70);
    longer.set(wrapped);
    expect(catchDecryptionError(() => unwrapDataKey(masterKey, longer, "user-a")).code).toBe(
      "malformed",
    );
  });

  it.each([0, 3, 255])("rejects version byte %i as unsupported_version", (version) => {
    const wrapped = wrapDataKey(masterKey, generateDataKey(), "user-a");
    wrapped[0] = version;
    expect(catchDecryptionError(() => unwrapDataKey(masterKey, wrapped, "user-a")).code).toBe(
      "unsupported_version",
    );
  });

  it("opens a version-1 wrap (61 bytes, no key id), bound to its user and master key alike", () => {
    const dek = generateDataKey();
    const wrapped = wrapVersionOne(masterKey, dek, "user-a");
    expect(wrappedKeyId(wrapped)).toBeNull();
    expect(unwrapDataKey(masterKey, wrapped, "user-a")).toEqual(dek);
    expect(catchDecryptionError(() => unwrapDataKey(masterKey, wrapped, "user-b")).code).toBe(
      "authentication_failed",
    );
    for (let bit = 0; bit < wrapped.length * 8; bit++) {
      const error = catchDecryptionError(() =>
        unwrapDataKey(masterKey, flipBit(wrapped, bit), "user-a"),
      );
      expect(error.code).toBe(bit < 8 ? "unsupported_version" : "authentication_failed");
    }
    // A version-1 header on a version-2 length (and the reverse) is malformed.
    const v2 = wrapDataKey(masterKey, dek, "user-a");
    expect(catchDecryptionError(() => wrappedKeyId(Uint8Array.of(1, ...v2.subarray(1)))).code).toBe(
      "malformed",
    );
    expect(
      catchDecryptionError(() => wrappedKeyId(Uint8Array.of(2, ...wrapped.subarray(1)))).code,
    ).toBe("malformed");
  });

  it("turns arbitrary bytes into a DecryptionError, never a raw node error", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        catchDecryptionError(() => unwrapDataKey(masterKey, bytes, "user-a"));
      }),
      { numRuns: 300 },
    );
  });

  it("property: unwrap(wrap(k, u), u) = k and every other userId fails", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.string({ unit: "binary", maxLength: 40 }),
        (dek, userId, otherId) => {
          const wrapped = wrapDataKey(masterKey, dek, userId);
          expect(unwrapDataKey(masterKey, wrapped, userId)).toEqual(dek);
          if (otherId !== userId) {
            const error = catchDecryptionError(() => unwrapDataKey(masterKey, wrapped, otherId));
            expect(error.code).toBe("authentication_failed");
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("throws TypeError naming the argument on misuse", () => {
    const dek = generateDataKey();
    expect(() => wrapDataKey(new Uint8Array(31), dek, "u")).toThrow(/masterKey/);
    expect(() => wrapDataKey(masterKey, new Uint8Array(33), "u")).toThrow(/dataKey/);
    expect(() => wrapDataKey(masterKey, dek, "u\uD800")).toThrow(/userId/);
    expect(() => wrapDataKey(masterKey, dek, "u", () => new Uint8Array(11))).toThrow(TypeError);
    const wrapped = wrapDataKey(masterKey, dek, "u");
    expect(() => unwrapDataKey(new Uint8Array(16), wrapped, "u")).toThrow(/masterKey/);
    expect(() => unwrapDataKey(masterKey, wrapped, "\uDC00")).toThrow(/userId/);
  });
});
