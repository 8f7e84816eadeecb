/**
 * Cosignatures (C2SP tlog-cosignature) and the k-of-n witness policy. No Go implementation of
 * cosignature/v1 is installed here (golang.org/x/mod/sumdb/note has none), so the format is checked
 * against an independent construction: node:crypto's Ed25519 (OpenSSL) over the message the spec
 * spells out, the key id and key strings built by hand from the spec's formulas, and the
 * timestamp of the spec's own example cosignature.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import {
  cosignatureTime,
  cosignerFromSeed,
  decodeBase64,
  formatCheckpoint,
  generateCosigner,
  NoteError,
  openWitnessedCheckpoint,
  parseCosignerKey,
  parseCosignerVerifierKey,
  parseVerifierKey,
  signerFromSeed,
  signNote,
} from "../src/index.js";

function reason(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    if (error instanceof NoteError) {
      return error.reason;
    }
    throw error;
  }
  return "accepted";
}

const encoder = new TextEncoder();
const seed = sha256(encoder.encode("cosignature test seed"));
const name = "witness.example/w1";
const text = formatCheckpoint({
  origin: "localhost:8787/tlog",
  size: 20852163,
  rootHash: sha256(encoder.encode("root")),
  extensions: [],
});

/** Ed25519 by OpenSSL: the seed wrapped in its RFC 8410 PKCS#8 DER. */
function opensslKey(secret: Uint8Array) {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), secret]);
  return createPrivateKey({ key: der, format: "der", type: "pkcs8" });
}

describe("cosignature/v1 format (independent construction)", () => {
  const key = opensslKey(seed);
  const publicKey = createPublicKey(key).export({ format: "der", type: "spki" }).subarray(-32);
  const typedKey = Buffer.concat([Buffer.of(0x04), publicKey]);
  const id = createHash("sha256").update(`${name}\n`).update(typedKey).digest().subarray(0, 4);
  const cosigner = cosignerFromSeed(name, seed);

  it("has the key id SHA-256(name ‖ 0x0A ‖ 0x04 ‖ key)[:4] and the vkey and skey formats", () => {
    expect(cosigner.keyId).toBe(id.readUInt32BE(0));
    expect(cosigner.vkey).toBe(`${name}+${id.toString("hex")}+${typedKey.toString("base64")}`);
    expect(cosigner.skey).toBe(
      `PRIVATE+KEY+${name}+${id.toString("hex")}+${Buffer.concat([Buffer.of(4), seed]).toString("base64")}`,
    );
    expect(parseCosignerVerifierKey(cosigner.vkey).keyId).toBe(cosigner.keyId);
    expect(parseCosignerKey(cosigner.skey).vkey).toBe(cosigner.vkey);
  });

  it("signs cosignature/v1\\ntime <t>\\n ‖ text, with key id ‖ u64 time ‖ signature", () => {
    const time = 1679315147;
    const line = cosigner.cosign(text, time);
    const expected = Buffer.concat([
      id,
      Buffer.from("0000000064185" + "0cb", "hex"),
      sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${text}`), key),
    ]);
    expect(line).toBe(`— ${name} ${expected.toString("base64")}\n`);
    const verifier = parseCosignerVerifierKey(cosigner.vkey);
    expect(verifier.verify(encoder.encode(text), expected.subarray(4))).toBe(true);
    expect(verifier.verify(encoder.encode(`${text}x\n`), expected.subarray(4))).toBe(false);
    const otherTime = Buffer.from(expected);
    otherTime[11] = (otherTime[11] as number) ^ 1;
    expect(verifier.verify(encoder.encode(text), otherTime.subarray(4))).toBe(false);
  });

  it("reads the timestamp of the spec's example cosignature (1679315147, its message's time)", () => {
    const bytes = decodeBase64(
      "jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==",
    ) as Uint8Array;
    expect(cosignatureTime(bytes.subarray(4))).toBe(1679315147n);
    expect(cosignatureTime(bytes.subarray(5))).toBeNull();
  });

  it("refuses keys of the other type, wrong key ids and times beyond 2^63 − 1", () => {
    const log = signerFromSeed(name, seed);
    expect(reason(() => parseCosignerVerifierKey(log.vkey))).toBe("note_malformed");
    expect(reason(() => parseVerifierKey(cosigner.vkey))).toBe("note_malformed");
    expect(
      reason(() =>
        parseCosignerVerifierKey(cosigner.vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+")),
      ),
    ).toBe("note_malformed");
    expect(reason(() => parseCosignerKey(log.skey))).toBe("note_malformed");
    const big = new Uint8Array(72);
    big.fill(0xff, 0, 8);
    expect(parseCosignerVerifierKey(cosigner.vkey).verify(encoder.encode(text), big)).toBe(false);
    expect(reason(() => cosigner.cosign(text, -1))).toBe("note_malformed");
    expect(reason(() => cosigner.cosign("no newline", 1))).toBe("note_malformed");
  });
});

describe("openWitnessedCheckpoint (k of n)", () => {
  const log = signerFromSeed("localhost:8787/tlog", sha256(encoder.encode("log")));
  const w1 = generateCosigner("witness.example/w1");
  const w2 = generateCosigner("witness.example/w2");
  const stranger = generateCosigner("witness.example/w3");
  const witnesses = [w1, w2].map((w) => parseCosignerVerifierKey(w.vkey));
  const signed = signNote(text, [log]);
  const both = signed + w1.cosign(text, 100) + w2.cosign(text, 200);

  it("accepts two cosignatures under 2-of-2 and reports their times", () => {
    const result = openWitnessedCheckpoint(both, [log], witnesses, 2, "localhost:8787/tlog");
    expect(result.checkpoint.size).toBe(20852163);
    expect(result.cosignatures.map((c) => [c.name, c.time])).toEqual([
      ["witness.example/w1", 100n],
      ["witness.example/w2", 200n],
    ]);
  });

  it("counts one witness once and ignores unknown ones", () => {
    const repeated =
      signed + w1.cosign(text, 100) + w1.cosign(text, 101) + stranger.cosign(text, 5);
    expect(openWitnessedCheckpoint(repeated, [log], witnesses, 1).cosignatures).toHaveLength(1);
    expect(reason(() => openWitnessedCheckpoint(repeated, [log], witnesses, 2))).toBe(
      "witness_policy_unmet",
    );
    expect(reason(() => openWitnessedCheckpoint(signed, [log], witnesses, 1))).toBe(
      "witness_policy_unmet",
    );
    expect(openWitnessedCheckpoint(signed, [log], witnesses, 0).cosignatures).toEqual([]);
  });

  it("refuses a bad cosignature by a trusted witness, a missing log signature and a bad k", () => {
    const forged = w1.cosign(text, 100).replace(/[A-Za-z0-9+/]{6}==\n$/, "AAAAAA==\n");
    expect(reason(() => openWitnessedCheckpoint(signed + forged, [log], witnesses, 1))).toBe(
      "note_signature_invalid",
    );
    const other = w2.cosign(`${text.slice(0, -2)}7\n`, 1);
    expect(reason(() => openWitnessedCheckpoint(signed + other, [log], witnesses, 1))).toBe(
      "note_signature_invalid",
    );
    const unsignedByLog = `${text}\n${w1.cosign(text, 1)}${w2.cosign(text, 2)}`;
    expect(reason(() => openWitnessedCheckpoint(unsignedByLog, [log], witnesses, 2))).toBe(
      "note_signature_invalid",
    );
    expect(() => openWitnessedCheckpoint(both, [log], witnesses, 3)).toThrow(RangeError);
    expect(() => openWitnessedCheckpoint(both, [log], witnesses, -1)).toThrow(RangeError);
  });
});
