/**
 * Known-answer tests of the AES-256-GCM primitive exactly as this package calls node:crypto
 * (src/_gcm.ts): the GCM specification's AES-256 test cases (McGrew & Viega, Appendix B) and
 * Project Wycheproof's AES-256 / 96-bit IV / 128-bit tag group, valid and invalid vectors
 * (each data file names its `source`).
 */
import { describe, expect, it } from "vitest";
import { gcmOpen, gcmSeal } from "../src/_gcm.js";
import { catchDecryptionError, fromHex, toHex } from "./_helpers.js";
import spec from "./vectors/gcm-aes256.json" with { type: "json" };
import wycheproof from "./vectors/wycheproof-aes256-gcm.json" with { type: "json" };

describe("GCM specification, Appendix B", () => {
  it.each(spec.vectors)("$name: seals to the published ciphertext and tag", (v) => {
    const sealed = gcmSeal(
      fromHex(v.key),
      fromHex(v.iv),
      fromHex(v.plaintext),
      fromHex(v.aad),
      new Uint8Array(),
    );
    expect(toHex(sealed)).toBe(v.ciphertext + v.tag);
  });

  it.each(spec.vectors)("$name: opens the published ciphertext, rejects a changed tag", (v) => {
    const sealed = fromHex(v.ciphertext + v.tag);
    expect(toHex(gcmOpen(fromHex(v.key), fromHex(v.iv), sealed, fromHex(v.aad)))).toBe(v.plaintext);
    const bad = sealed.slice();
    bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 0x80;
    const error = catchDecryptionError(() =>
      gcmOpen(fromHex(v.key), fromHex(v.iv), bad, fromHex(v.aad)),
    );
    expect(error.code).toBe("authentication_failed");
  });
});

describe("Wycheproof aes_gcm_test.json (keySize 256, ivSize 96, tagSize 128)", () => {
  const valid = wycheproof.tests.filter((t) => t.result === "valid");
  const invalid = wycheproof.tests.filter((t) => t.result === "invalid");

  it("has both kinds of vectors", () => {
    expect(valid.length).toBeGreaterThan(30);
    expect(invalid.length).toBeGreaterThan(20);
  });

  it.each(valid)("tcId $tcId (valid, $flags): seals and opens", (t) => {
    const [key, iv, aad] = [fromHex(t.key), fromHex(t.iv), fromHex(t.aad)];
    expect(toHex(gcmSeal(key, iv, fromHex(t.msg), aad, new Uint8Array()))).toBe(t.ct + t.tag);
    expect(toHex(gcmOpen(key, iv, fromHex(t.ct + t.tag), aad))).toBe(t.msg);
  });

  it.each(invalid)("tcId $tcId (invalid, $flags): refuses to open", (t) => {
    const error = catchDecryptionError(() =>
      gcmOpen(fromHex(t.key), fromHex(t.iv), fromHex(t.ct + t.tag), fromHex(t.aad)),
    );
    expect(error.code).toBe("authentication_failed");
  });
});
