/**
 * The cross-check of docs/protocol.md §13.2 "Signed notes" against Go's golang.org/x/mod/sumdb/note
 * and sumdb/tlog (Debian's golang-go and golang-golang-x-mod-dev). `.ci/run` installs both and sets
 * REQUIRE_GO_INTEROP=1, so there a missing toolchain fails instead of skipping.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import {
  CompactRange,
  hashLeaf,
  MemoryNodeStore,
  readTile,
  tilePath,
  tilesAt,
} from "@verifiable-memory/merkle-log";
import { describe, expect, it } from "vitest";
import { goAvailable, runGo } from "../interop/interop.js";
import {
  encodeBase64,
  formatCheckpoint,
  NoteError,
  openNote,
  parseVerifierKey,
  signerFromSeed,
  signNote,
  userLogOrigin,
} from "../src/index.js";

const EXAMPLE_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const EXAMPLE_NOTE =
  "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

const haveGo = goAvailable();
if (!haveGo && process.env.REQUIRE_GO_INTEROP === "1") {
  throw new Error("REQUIRE_GO_INTEROP=1 but go or golang.org/x/mod (GOPATH) is missing");
}

describe.skipIf(!haveGo)("signed notes and trees against Go's sumdb/note and sumdb/tlog", () => {
  const signer = signerFromSeed("localhost:8787/tlog", sha256(Uint8Array.of(7)));
  const leaves = Array.from({ length: 600 }, (_, i) => new TextEncoder().encode(`entry ${i}\n`));
  const range = CompactRange.empty();
  const store = new MemoryNodeStore();
  const roots: string[] = [];
  for (const leaf of leaves) {
    store.put(range.append(hashLeaf(leaf)));
    roots.push(encodeBase64(range.root()));
  }
  const texts = [
    formatCheckpoint({
      origin: userLogOrigin(signer.name, "7NjQ1jm2CXG9Rkp6dRbUuGj9CNh5yNmp7NQKtdyHMh9f"),
      size: 600,
      rootHash: range.root(),
      extensions: [],
    }),
    "a\n\nb with blank line\n",
    "ünïcödé \u2014 text\n",
  ];
  const ours = texts.map((t) => signNote(t, [signer]));
  const tampered = [
    ours[0]?.replace("\n600\n", "\n601\n") as string,
    ours[1]?.replace("\n\n", "\n") as string,
    `${ours[2]}x`,
  ];
  const go = runGo({
    skey: signer.skey,
    vkeys: [signer.vkey, EXAMPLE_VKEY],
    texts,
    notes: [...ours, EXAMPLE_NOTE, ...tampered],
    leaves: leaves.map(encodeBase64),
    tiles: [],
  });

  it("derives the same verifier key from the signer key", () => {
    expect(go.vkey).toBe(signer.vkey);
  });

  it("signs every text to the same bytes", () => {
    expect(go.signed).toEqual(ours);
  });

  it("opens the same notes with the same text and refuses the same tampered ones", () => {
    const verifiers = [signer, parseVerifierKey(EXAMPLE_VKEY)];
    const mine = [...ours, EXAMPLE_NOTE, ...tampered].map((n) => {
      try {
        return { ok: true, text: openNote(n, verifiers).text };
      } catch (error) {
        expect(error).toBeInstanceOf(NoteError);
        return { ok: false, text: "" };
      }
    });
    expect(go.opened?.map(({ ok, text }) => ({ ok, text }))).toEqual(mine);
    expect(mine.map((m) => m.ok)).toEqual([true, true, true, true, false, false, false]);
  });

  it("computes the same RFC 6962 root at every size", () => {
    expect(go.roots).toEqual(roots);
  });
});

describe.skipIf(!haveGo)("tiles against Go's sumdb/tlog (tile height 8)", () => {
  it("writes the same paths (Go's carry the height: tile/8/…) and the same tile bytes", async () => {
    const store = new MemoryNodeStore();
    const range = CompactRange.empty();
    const leaves = Array.from({ length: 600 }, (_, i) => new TextEncoder().encode(`tile ${i}`));
    for (const leaf of leaves) {
      store.put(range.append(hashLeaf(leaf)));
    }
    const tiles = [
      ...tilesAt(600),
      { level: 0, index: 1234067, width: 5 },
      { level: 2, index: 1000, width: 1 },
    ];
    const go = runGo({
      skey: signerFromSeed("t.example", sha256(Uint8Array.of(1))).skey,
      vkeys: [],
      texts: [],
      notes: [],
      leaves: leaves.map(encodeBase64),
      tiles: tiles.map((t) => ({ l: t.level as number, n: t.index, w: t.width })),
    });
    expect(go.tilePaths?.map((p) => p.replace(/^tile\/8\//, "tile/"))).toEqual(tiles.map(tilePath));
    const ours = await Promise.all(
      tilesAt(600).map(async (t) => encodeBase64(await readTile(store, t))),
    );
    expect(go.tileData?.slice(0, ours.length)).toEqual(ours);
    expect(tilesAt(600).map(tilePath)).toEqual([
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/2",
    ]);
  });
});
