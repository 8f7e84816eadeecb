import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import {
  decodeBase64,
  encodeBase64,
  formatCheckpoint,
  generateSigner,
  isValidKeyName,
  keyId,
  NoteError,
  openCheckpoint,
  openNote,
  parseCheckpoint,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signerFromSeed,
  signNote,
  userLogOrigin,
} from "../src/index.js";

// The example of C2SP signed-note (and Go's sumdb/note documentation): a known answer.
const EXAMPLE_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const EXAMPLE_NOTE =
  "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

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

const seed = sha256(new TextEncoder().encode("signed-note test seed"));
const signer = signerFromSeed("log.example/tlog", seed);

describe("the C2SP signed-note example (known answer)", () => {
  it("parses the example verifier key with its key id", () => {
    const v = parseVerifierKey(EXAMPLE_VKEY);
    expect(v.name).toBe("example.com/foo");
    expect(v.keyId).toBe(0x530d903a);
    expect(v.vkey).toBe(EXAMPLE_VKEY);
    expect(keyId(v.name, Uint8Array.of(1, ...v.publicKey))).toBe(0x530d903a);
  });

  it("verifies the example note and refuses it changed by one letter", () => {
    const opened = openNote(EXAMPLE_NOTE, [parseVerifierKey(EXAMPLE_VKEY)]);
    expect(opened.text).toBe("This is an example message.\n");
    expect(opened.verified.map((s) => s.name)).toEqual(["example.com/foo"]);
    const changed = EXAMPLE_NOTE.replace("example message", "exbmple message");
    expect(reason(() => openNote(changed, [parseVerifierKey(EXAMPLE_VKEY)]))).toBe(
      "note_signature_invalid",
    );
  });

  it("ignores the example's signature when the name or the key id is unknown", () => {
    expect(reason(() => openNote(EXAMPLE_NOTE, [signer]))).toBe("note_signature_invalid");
    const opened = openNote(signNote("This is an example message.\n", [signer]), [signer]);
    expect(opened.unverified).toEqual([]);
    const both = `${EXAMPLE_NOTE}${signNote("This is an example message.\n", [signer]).split("\n\n")[1]}`;
    const mixed = openNote(both, [signer]);
    expect(mixed.verified.map((s) => s.name)).toEqual(["log.example/tlog"]);
    expect(mixed.unverified.map((s) => s.keyId)).toEqual([0x530d903a]);
  });
});

describe("keys", () => {
  it("round-trips the signer and verifier keys and refuses a wrong key id", () => {
    expect(parseSignerKey(signer.skey).vkey).toBe(signer.vkey);
    expect(parseVerifierKey(signer.vkey).publicKey).toEqual(signer.publicKey);
    const [, name, id, key] = /^([^+]+)\+([^+]+)\+(.+)$/.exec(signer.vkey) ?? [];
    const wrongId = ((Number.parseInt(id as string, 16) + 1) >>> 0).toString(16).padStart(8, "0");
    expect(reason(() => parseVerifierKey(`${name}+${wrongId}+${key}`))).toBe("note_malformed");
    expect(reason(() => parseVerifierKey(`${name}+${id}+${key}=`))).toBe("note_malformed");
    expect(reason(() => parseVerifierKey(`${name}+${(id as string).toUpperCase()}+${key}`))).toBe(
      "note_malformed",
    );
    expect(reason(() => parseSignerKey(signer.vkey))).toBe("note_malformed");
    expect(reason(() => parseSignerKey(signer.skey.replace("log.example", "log.other")))).toBe(
      "note_malformed",
    );
  });

  it("refuses a key of another signature type", () => {
    const typed = Uint8Array.of(0x04, ...signer.publicKey);
    const id = keyId("w.example", typed).toString(16).padStart(8, "0");
    expect(reason(() => parseVerifierKey(`w.example+${id}+${encodeBase64(typed)}`))).toBe(
      "note_malformed",
    );
  });

  it("checks key names as the spec does", () => {
    expect(isValidKeyName("localhost:8787/tlog")).toBe(true);
    for (const bad of ["", "a b", "a+b", "a\u00a0b", "a\u0085b", "a\u3000b", "a\u0000b"]) {
      expect(isValidKeyName(bad)).toBe(false);
    }
    expect(reason(() => signerFromSeed("a+b", seed))).toBe("note_malformed");
  });

  it("generates distinct random signers that sign verifiably", () => {
    const a = generateSigner("a.example");
    const b = generateSigner("a.example");
    expect(a.vkey).not.toBe(b.vkey);
    expect(openNote(signNote("x\n", [a]), [a]).text).toBe("x\n");
    expect(reason(() => openNote(signNote("x\n", [a]), [parseVerifierKey(b.vkey)]))).toBe(
      "note_signature_invalid",
    );
  });
});

describe("notes", () => {
  const note = signNote("origin\n1\nroot\n", [signer]);

  it("signs deterministically and verifies with the verifier key alone", () => {
    expect(signNote("origin\n1\nroot\n", [signer])).toBe(note);
    expect(openNote(note, [parseVerifierKey(signer.vkey)]).text).toBe("origin\n1\nroot\n");
    expect(openNote(new TextEncoder().encode(note), [signer]).text).toBe("origin\n1\nroot\n");
  });

  it("separates the text at the last blank line (texts may hold blank lines)", () => {
    const blank = signNote("a\n\nb\n", [signer]);
    expect(openNote(blank, [signer]).text).toBe("a\n\nb\n");
  });

  it("refuses malformed notes", () => {
    const cases = [
      note.replace("\n\n", "\n"),
      note.slice(0, -1),
      `${note}\n`,
      note.replace("\u2014 ", "- "),
      note.replace("origin", "ori\tgin"),
      note.replace(/ (\S+)\n$/, " $1x\n"),
      note.replace(/ (\S+)\n$/, " AAAA\n"),
    ];
    for (const bad of cases) {
      expect(
        reason(() => openNote(bad, [signer])),
        JSON.stringify(bad),
      ).toBe("note_malformed");
    }
    expect(reason(() => parseNote(Uint8Array.of(0x61, 0x0a, 0x0a, 0xff, 0x0a)))).toBe(
      "note_malformed",
    );
    expect(reason(() => signNote("no newline", [signer]))).toBe("note_malformed");
  });

  it("refuses a note whose known signature fails even if another verifies", () => {
    const other = generateSigner("other.example");
    const both = signNote("t\n", [signer, other]);
    const lines = both.split("\n");
    const forged = signNote("u\n", [other]).split("\n")[2] as string;
    const tampered = [lines[0], lines[1], lines[2], forged, ""].join("\n");
    expect(reason(() => openNote(tampered, [signer, other]))).toBe("note_signature_invalid");
    expect(openNote(tampered, [signer]).unverified).toHaveLength(1);
  });
});

describe("checkpoints", () => {
  const root = sha256(new Uint8Array());

  it("formats and parses origin, size and base64 root", () => {
    const text = formatCheckpoint({
      origin: "l.example/tlog",
      size: 12,
      rootHash: root,
      extensions: [],
    });
    expect(text).toBe(`l.example/tlog\n12\n${encodeBase64(root)}\n`);
    expect(parseCheckpoint(text)).toEqual({
      origin: "l.example/tlog",
      size: 12,
      rootHash: root,
      extensions: [],
    });
  });

  it("refuses texts that are not checkpoints", () => {
    const r = encodeBase64(root);
    for (const bad of [
      `o\n012\n${r}\n`,
      `o\n-1\n${r}\n`,
      `o\n1\n${r}`,
      `\n1\n${r}\n`,
      `o\n1\n${encodeBase64(root.subarray(1))}\n`,
      `o\n1\n${r}\n\n`,
      `o\n9007199254740992\n${r}\n`,
    ]) {
      expect(
        reason(() => parseCheckpoint(bad)),
        JSON.stringify(bad),
      ).toBe("note_malformed");
    }
  });

  it("opens a signed user checkpoint and checks its origin", () => {
    const origin = userLogOrigin("l.example/tlog", "11111111111111111111111111111111");
    const note = signNote(formatCheckpoint({ origin, size: 3, rootHash: root, extensions: [] }), [
      signer,
    ]);
    expect(openCheckpoint(note, [signer], origin).checkpoint.size).toBe(3);
    expect(reason(() => openCheckpoint(note, [signer], "l.example/tlog"))).toBe("note_malformed");
  });
});

describe("base64", () => {
  it("accepts only the canonical spelling", () => {
    expect(decodeBase64("AQID")).toEqual(Uint8Array.of(1, 2, 3));
    expect(decodeBase64("AQ==")).toEqual(Uint8Array.of(1));
    expect(decodeBase64("")).toEqual(new Uint8Array());
    for (const bad of ["AQ", "AR==", "A===", "AQ=A", "A-_=", "AQI=AQI="]) {
      expect(decodeBase64(bad), bad).toBeNull();
    }
  });
});

describe("docs/protocol.md §13.3 example", () => {
  it("is the note this package signs", () => {
    const key = signerFromSeed(
      "localhost:8787/tlog",
      sha256(new TextEncoder().encode("docs/protocol.md example log key")),
    );
    expect(key.vkey).toBe(
      "localhost:8787/tlog+234b4ce3+ARiKee0326nyEXRV27xXzuATVcHxt89iVEg4shzjcPXK",
    );
    const note =
      "localhost:8787/tlog/users/7NjQ1jm2CXG9Rkp6dRbUuGj9CNh5yNmp7NQKtdyHMh9f\n5\nshZchvv7NPpRhAu2uj1c4NfcMfLmBbW6YsmPqG/2dG0=\n\n— localhost:8787/tlog I0tM42xJYHgqIz8yDOQPHaGPJ71tWDUqo1gQyECSrswBhiueP+QwSoYfketZu4CHtDy62SmU0LAyBOVbxoVzXiDLVQM=\n";
    expect(openCheckpoint(note, [parseVerifierKey(key.vkey)]).checkpoint.size).toBe(5);
    expect(signNote(parseNote(note).text, [key])).toBe(note);
  });
});
