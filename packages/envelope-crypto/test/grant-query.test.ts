/**
 * Grant search queries sealed under the owner's data key (docs/protocol.md §8.1 "Creation"):
 * round trips, the associated data of §4.3's style byte for byte (checked by opening with
 * node:crypto directly), binding to user and grant, tampering and truncation.
 */
import { createDecipheriv } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decryptGrantQuery,
  encryptGrantQuery,
  type GrantQueryContext,
  generateDataKey,
} from "../src/index.js";
import { catchDecryptionError, flipBit } from "./_helpers.js";

const dek = generateDataKey();
const ctx: GrantQueryContext = {
  userId: "user-é",
  grantId: "3f0c1f4e-0000-4000-8000-000000000001",
};

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

describe("encryptGrantQuery / decryptGrantQuery", () => {
  it("seals the UTF-8 query under AES-256-GCM with the documented associated data", () => {
    const query = "café 漢字 notes";
    const sealed = encryptGrantQuery(dek, query, ctx);
    expect(sealed.ciphertext.length).toBe(Buffer.byteLength(query) + 17);
    expect(sealed.ciphertext[0]).toBe(1);
    expect(sealed.iv.length).toBe(12);
    expect(decryptGrantQuery(dek, sealed, ctx)).toBe(query);
    const aad = Buffer.concat([
      Buffer.from("svc/envelope/grant-query", "ascii"),
      Buffer.of(0x00, 0x01),
      u32(Buffer.byteLength(ctx.userId)),
      Buffer.from(ctx.userId, "utf8"),
      u32(Buffer.byteLength(ctx.grantId)),
      Buffer.from(ctx.grantId, "utf8"),
    ]);
    const body = sealed.ciphertext.subarray(1, sealed.ciphertext.length - 16);
    const decipher = createDecipheriv("aes-256-gcm", dek, sealed.iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - 16));
    expect(Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8")).toBe(query);
  });

  it("draws a fresh IV each time and never contains the query bytes", () => {
    const a = encryptGrantQuery(dek, "secret query", ctx);
    const b = encryptGrantQuery(dek, "secret query", ctx);
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).includes(Buffer.from("secret"))).toBe(false);
  });

  it.each([
    ["grantId", { ...ctx, grantId: "3f0c1f4e-0000-4000-8000-000000000002" }],
    ["userId", { ...ctx, userId: "user-b" }],
    ["field boundary", { userId: `${ctx.userId}3`, grantId: ctx.grantId.slice(1) }],
  ])("does not open under another %s", (_, other) => {
    const sealed = encryptGrantQuery(dek, "q", ctx);
    expect(catchDecryptionError(() => decryptGrantQuery(dek, sealed, other)).code).toBe(
      "authentication_failed",
    );
  });

  it("does not open under another data key, after a flipped bit, or truncated", () => {
    const sealed = encryptGrantQuery(dek, "query", ctx);
    expect(catchDecryptionError(() => decryptGrantQuery(generateDataKey(), sealed, ctx)).code).toBe(
      "authentication_failed",
    );
    expect(
      catchDecryptionError(() =>
        decryptGrantQuery(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, 8 * 3) }, ctx),
      ).code,
    ).toBe("authentication_failed");
    expect(
      catchDecryptionError(() =>
        decryptGrantQuery(dek, { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 16) }, ctx),
      ).code,
    ).toBe("malformed");
    expect(
      catchDecryptionError(() =>
        decryptGrantQuery(dek, { ...sealed, ciphertext: flipBit(sealed.ciphertext, 1) }, ctx),
      ).code,
    ).toBe("unsupported_version");
    expect(() => encryptGrantQuery(dek, "\ud800", ctx)).toThrow(TypeError);
  });
});
