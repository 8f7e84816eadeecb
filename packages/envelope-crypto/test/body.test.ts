/**
 * Memory bodies sealed under the user's data key (docs/protocol.md §4.1 "The memory record"): round
 * trips, binding to userId and memoryId, tampering, truncation, versions, misuse, and the
 * fast-check round-trip property (open(seal(x, ctx), ctx) = x; any other context fails).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BodyContext,
  DecryptionError,
  decryptBody,
  encryptBody,
  generateDataKey,
  unwrapDataKey,
  wrapDataKey,
} from "../src/index.js";
import { catchDecryptionError, flipBit, toHex, utf8 } from "./_helpers.js";

const dek = generateDataKey();
const ctx: BodyContext = { userId: "user-a", memoryId: "mem-1" };

describe("encryptBody / decryptBody round trips", () => {
  it.each([0, 1, 200, 32 * 1024])("%i-byte plaintext", (n) => {
    const plaintext = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 0xff);
    const sealed = encryptBody(dek, plaintext, ctx);
    expect(sealed.iv.length).toBe(12);
    expect(sealed.ciphertext.length).toBe(1 + n + 16);
    expect(sealed.ciphertext[0]).toBe(1);
    expect(decryptBody(dek, sealed, ctx)).toEqual(plaintext);
  });

  it("opens columns that are views into larger buffers (as a driver may return them)", () => {
    const sealed = encryptBody(dek, utf8("in a row"), ctx);
    const row = new Uint8Array(7 + sealed.ciphertext.length + sealed.iv.length);
    row.set(sealed.ciphertext, 7);
    row.set(sealed.iv, 7 + sealed.ciphertext.length);
    const ciphertext = row.subarray(7, 7 + sealed.ciphertext.length);
    const iv = Buffer.from(row.buffer, 7 + sealed.ciphertext.length, 12);
    expect(decryptBody(dek, { ciphertext, iv }, ctx)).toEqual(utf8("in a row"));
  });

  it("draws a distinct IV for every body, across many refills of the IV pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      seen.add(toHex(encryptBody(dek, new Uint8Array(0), ctx).iv));
    }
    expect(seen.size).toBe(5000);
  });
});

describe("binding and tampering", () => {
  it("fails for another userId, another memoryId and another user's data key", () => {
    const sealed = encryptBody(dek, utf8("secret"), ctx);
    const kek = generateDataKey();
    const otherUsersKey = unwrapDataKey(
      kek,
      wrapDataKey(kek, generateDataKey(), "user-b"),
      "user-b",
    );
    const attempts = [
      () => decryptBody(dek, sealed, { ...ctx, userId: "user-b" }),
      () => decryptBody(dek, sealed, { ...ctx, memoryId: "mem-2" }),
      () => decryptBody(dek, sealed, { userId: "mem-1", memoryId: "user-a" }),
      () => decryptBody(otherUsersKey, sealed, ctx),
    ];
    for (const attempt of attempts) {
      expect(catchDecryptionError(attempt).code).toBe("authentication_failed");
    }
  });

  it("keeps contexts apart whose concatenations are equal", () => {
    const sealed = encryptBody(dek, utf8("x"), { userId: "ab", memoryId: "c" });
    const error = catchDecryptionError(() =>
      decryptBody(dek, sealed, { userId: "a", memoryId: "bc" }),
    );
    expect(error.code).toBe("authentication_failed");
  });

  it("rejects every flipped bit of the ciphertext column (version, body, tag) and the IV", () => {
    const sealed = encryptBody(dek, utf8("a memory worth keeping"), ctx);
    for (let bit = 0; bit < sealed.ciphertext.length * 8; bit++) {
      const error = catchDecryptionError(() =>
        decryptBody(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, bit) }, ctx),
      );
      expect(error.code).toBe(bit < 8 ? "unsupported_version" : "authentication_failed");
    }
    for (let bit = 0; bit < 96; bit++) {
      const error = catchDecryptionError(() =>
        decryptBody(dek, { ...sealed, iv: flipBit(sealed.iv, bit) }, ctx),
      );
      expect(error.code).toBe("authentication_failed");
    }
  });

  it("rejects flipped bits spread over a 32 KiB body, its first and last bytes included", () => {
    const sealed = encryptBody(dek, new Uint8Array(32 * 1024).fill(0x5a), ctx);
    const bits = sealed.ciphertext.length * 8;
    for (let bit = 8; bit < bits; bit += 997) {
      const error = catchDecryptionError(() =>
        decryptBody(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, bit) }, ctx),
      );
      expect(error.code).toBe("authentication_failed");
    }
    const last = catchDecryptionError(() =>
      decryptBody(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, bits - 1) }, ctx),
    );
    expect(last.code).toBe("authentication_failed");
  });

  it("rejects every truncation of the ciphertext column, an extension, and bad IV lengths", () => {
    const sealed = encryptBody(dek, utf8("hello"), ctx);
    for (let length = 0; length < sealed.ciphertext.length; length++) {
      const error = catchDecryptionError(() =>
        decryptBody(dek, { ...sealed, ciphertext: sealed.ciphertext.subarray(0, length) }, ctx),
      );
      expect(error.code).toBe(length < 17 ? "malformed" : "authentication_failed");
    }
    const longer = new Uint8Array(sealed.ciphertext.length + 1);
    longer.set(sealed.ciphertext);
    expect(
      catchDecryptionError(() => decryptBody(dek, { ...sealed, ciphertext: longer }, ctx)).code,
    ).toBe("authentication_failed");
    for (const length of [0, 1, 8, 11, 13, 16]) {
      const iv = new Uint8Array(length);
      iv.set(sealed.iv.subarray(0, Math.min(length, 12)));
      expect(catchDecryptionError(() => decryptBody(dek, { ...sealed, iv }, ctx)).code).toBe(
        "malformed",
      );
    }
  });

  it.each([0, 2, 255])("rejects version byte %i as unsupported_version", (version) => {
    const sealed = encryptBody(dek, utf8("x"), ctx);
    sealed.ciphertext[0] = version;
    expect(catchDecryptionError(() => decryptBody(dek, sealed, ctx)).code).toBe(
      "unsupported_version",
    );
  });

  it("turns arbitrary column bytes into a DecryptionError, never a raw node error", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.uint8Array({ maxLength: 16 }),
        fc.boolean(),
        (ciphertext, iv, versioned) => {
          if (versioned && ciphertext.length > 0) {
            ciphertext[0] = 1;
          }
          catchDecryptionError(() => decryptBody(dek, { ciphertext, iv }, ctx));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("puts neither plaintext nor key bytes into error messages", () => {
    const plaintext = "top secret plaintext";
    const sealed = encryptBody(dek, utf8(plaintext), ctx);
    const tampered = flipBit(sealed.ciphertext, 20);
    const errors = [
      catchDecryptionError(() => decryptBody(dek, sealed, { ...ctx, userId: "other" })),
      catchDecryptionError(() => decryptBody(dek, { ...sealed, ciphertext: tampered }, ctx)),
      catchDecryptionError(() => decryptBody(dek, { ...sealed, iv: new Uint8Array(3) }, ctx)),
      catchDecryptionError(() =>
        decryptBody(dek, { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 5) }, ctx),
      ),
    ];
    const secrets = [
      plaintext,
      toHex(dek),
      Buffer.from(dek).toString("base64"),
      toHex(sealed.ciphertext),
      toHex(sealed.iv),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(DecryptionError);
      expect(error.name).toBe("DecryptionError");
      for (const secret of secrets) {
        expect(error.message).not.toContain(secret);
      }
    }
  });
});

describe("misuse", () => {
  it("throws TypeError naming the argument", () => {
    const sealed = encryptBody(dek, utf8("x"), ctx);
    expect(() => encryptBody(new Uint8Array(16), utf8("x"), ctx)).toThrow(/dataKey/);
    expect(() => encryptBody(dek, "x" as unknown as Uint8Array, ctx)).toThrow(/plaintext/);
    expect(() => encryptBody(dek, utf8("x"), ctx, () => new Uint8Array(16))).toThrow(/random/);
    expect(() => decryptBody(new Uint8Array(0), sealed, ctx)).toThrow(/dataKey/);
    expect(() =>
      decryptBody(dek, { ...sealed, iv: "abcdefghijkl" as unknown as Uint8Array }, ctx),
    ).toThrow(/sealed/);
  });

  it("refuses lone surrogates, which UTF-8 would turn into the same U+FFFD", () => {
    expect(Buffer.from("\uD800")).toEqual(Buffer.from("\uDC00"));
    expect(() => encryptBody(dek, utf8("x"), { ...ctx, userId: "\uD800" })).toThrow(
      /context\.userId/,
    );
    const sealed = encryptBody(dek, utf8("x"), ctx);
    expect(() => decryptBody(dek, sealed, { ...ctx, memoryId: "m\uDC00" })).toThrow(
      /context\.memoryId/,
    );
  });
});

describe("property (fast-check)", () => {
  // A small alphabet makes equal, near-equal and concatenation-equal contexts common;
  // full Unicode covers multi-byte UTF-8.
  const id = fc.oneof(
    fc.string({ unit: fc.constantFrom("a", "b", "é", "\u0000"), maxLength: 4 }),
    fc.string({ unit: "binary", maxLength: 24 }),
  );
  const context = fc.record({ userId: id, memoryId: id });

  it("decrypt(encrypt(x, ctx), ctx) = x, and decrypting with any other context fails", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        context,
        context,
        (key, plaintext, own, other) => {
          const sealed = encryptBody(key, plaintext, own);
          expect(decryptBody(key, sealed, own)).toEqual(plaintext);
          if (own.userId !== other.userId || own.memoryId !== other.memoryId) {
            const error = catchDecryptionError(() => decryptBody(key, sealed, other));
            expect(error.code).toBe("authentication_failed");
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
