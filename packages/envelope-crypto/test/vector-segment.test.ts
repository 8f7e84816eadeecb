/**
 * Recall vector segments sealed under the user's data key (docs/protocol.md §4.5 "Recall"): the
 * associated data of §4.3's style byte for byte (checked by opening with node:crypto directly),
 * binding to user, leaf range and model, tampering, truncation and unknown versions.
 */
import { createDecipheriv } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decryptVectorSegment,
  encryptVectorSegment,
  generateDataKey,
  type VectorSegmentContext,
} from "../src/index.js";
import { catchDecryptionError, flipBit } from "./_helpers.js";

const dek = generateDataKey();
const ctx: VectorSegmentContext = {
  userId: "user-a",
  firstLeaf: 4096,
  endLeaf: 8192,
  modelId: "openai|http://127.0.0.1:1|m|4",
};

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

describe("encryptVectorSegment / decryptVectorSegment", () => {
  it("round trips under AES-256-GCM with the documented AAD", () => {
    const plaintext = Uint8Array.from([1, 2, 3, 4, 5, 250]);
    const sealed = encryptVectorSegment(dek, plaintext, ctx);
    expect(sealed.ciphertext.length).toBe(plaintext.length + 17);
    expect(sealed.ciphertext[0]).toBe(1);
    expect(Uint8Array.from(decryptVectorSegment(dek, sealed, ctx))).toEqual(plaintext);
    const aad = Buffer.concat([
      Buffer.from("svc/envelope/vector-segment\u0000\u0001", "latin1"),
      ...[ctx.userId, "4096-8192", ctx.modelId].flatMap((f) => [
        u32(Buffer.byteLength(f)),
        Buffer.from(f),
      ]),
    ]);
    const body = sealed.ciphertext.subarray(1, sealed.ciphertext.length - 16);
    const decipher = createDecipheriv("aes-256-gcm", dek, sealed.iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - 16));
    expect(Uint8Array.from(Buffer.concat([decipher.update(body), decipher.final()]))).toEqual(
      plaintext,
    );
  });

  it.each([
    ["userId", { ...ctx, userId: "user-b" }],
    ["firstLeaf", { ...ctx, firstLeaf: 0 }],
    ["endLeaf", { ...ctx, endLeaf: 8193 }],
    ["modelId", { ...ctx, modelId: "openai|http://127.0.0.1:1|m|8" }],
  ])("does not open under another %s", (_, other) => {
    const sealed = encryptVectorSegment(dek, Uint8Array.of(9, 9), ctx);
    expect(catchDecryptionError(() => decryptVectorSegment(dek, sealed, other)).code).toBe(
      "authentication_failed",
    );
  });

  it("refuses a flipped bit, another key, a truncated or unknown-version ciphertext, a bad range", () => {
    const sealed = encryptVectorSegment(dek, Uint8Array.of(1, 2, 3), ctx);
    expect(
      catchDecryptionError(() =>
        decryptVectorSegment(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, 12) }, ctx),
      ).code,
    ).toBe("authentication_failed");
    expect(
      catchDecryptionError(() => decryptVectorSegment(generateDataKey(), sealed, ctx)).code,
    ).toBe("authentication_failed");
    expect(
      catchDecryptionError(() =>
        decryptVectorSegment(
          dek,
          { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 16) },
          ctx,
        ),
      ).code,
    ).toBe("malformed");
    const v2 = Uint8Array.from(sealed.ciphertext);
    v2[0] = 2;
    expect(
      catchDecryptionError(() => decryptVectorSegment(dek, { ...sealed, ciphertext: v2 }, ctx))
        .code,
    ).toBe("unsupported_version");
    expect(() => encryptVectorSegment(dek, Uint8Array.of(1), { ...ctx, endLeaf: 4096 })).toThrow(
      TypeError,
    );
  });
});
