/**
 * Memory vectors sealed under the user's data key (docs/protocol.md §4.5 "Recall"): float32
 * little-endian round trips, the associated data of §4.3's style byte for byte (checked by opening
 * with node:crypto directly), binding to user, memory and model, tampering and truncation.
 */
import { createDecipheriv } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DecryptionError,
  decryptVector,
  encryptVector,
  generateDataKey,
  type VectorContext,
} from "../src/index.js";
import { catchDecryptionError, flipBit } from "./_helpers.js";

const dek = generateDataKey();
const ctx: VectorContext = {
  userId: "user-a",
  memoryId: "mem-1",
  modelId: "openai|http://127.0.0.1:1|m|4",
};

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

describe("encryptVector / decryptVector", () => {
  it("round trips float32 values exactly, little-endian under AES-256-GCM with the documented AAD", () => {
    const vector = Float32Array.of(0.5, -1.25, 3.4028234663852886e38, 1e-45);
    const sealed = encryptVector(dek, vector, ctx);
    expect(sealed.ciphertext.length).toBe(1 + 16 + 17 - 1);
    expect(sealed.ciphertext[0]).toBe(1);
    expect(decryptVector(dek, sealed, ctx)).toEqual(vector);
    const aad = Buffer.concat([
      Buffer.from("svc/envelope/vector\u0000\u0001", "latin1"),
      ...[ctx.userId, ctx.memoryId, ctx.modelId].flatMap((f) => [
        u32(Buffer.byteLength(f)),
        Buffer.from(f),
      ]),
    ]);
    const body = sealed.ciphertext.subarray(1, sealed.ciphertext.length - 16);
    const decipher = createDecipheriv("aes-256-gcm", dek, sealed.iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - 16));
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    expect(plain.readFloatLE(0)).toBe(0.5);
    expect(plain.readFloatLE(4)).toBe(-1.25);
  });

  it.each([
    ["userId", { ...ctx, userId: "user-b" }],
    ["memoryId", { ...ctx, memoryId: "mem-2" }],
    ["modelId", { ...ctx, modelId: "openai|http://127.0.0.1:1|m|8" }],
  ])("does not open under another %s", (_, other) => {
    const sealed = encryptVector(dek, Float32Array.of(1, 2), ctx);
    expect(
      catchDecryptionError(() => decryptVector(dek, sealed, other as VectorContext)).code,
    ).toBe("authentication_failed");
  });

  it("refuses a flipped bit, another key, a truncated or unknown-version ciphertext", () => {
    const sealed = encryptVector(dek, Float32Array.of(1, 2, 3), ctx);
    expect(
      catchDecryptionError(() =>
        decryptVector(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, 40) }, ctx),
      ).code,
    ).toBe("authentication_failed");
    expect(catchDecryptionError(() => decryptVector(generateDataKey(), sealed, ctx)).code).toBe(
      "authentication_failed",
    );
    expect(
      catchDecryptionError(() =>
        decryptVector(dek, { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 19) }, ctx),
      ).code,
    ).toBe("malformed");
    const v2 = Uint8Array.from(sealed.ciphertext);
    v2[0] = 2;
    expect(
      catchDecryptionError(() => decryptVector(dek, { ...sealed, ciphertext: v2 }, ctx)).code,
    ).toBe("unsupported_version");
    expect(() => encryptVector(dek, new Float32Array(0), ctx)).toThrow(TypeError);
    expect(DecryptionError).toBeDefined();
  });
});
