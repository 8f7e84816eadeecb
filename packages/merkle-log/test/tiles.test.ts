/**
 * Tiles (C2SP tlog-tiles): paths, widths, entry bundles, and trees read back from their tiles
 * alone: the root at every size and consistency proofs, compared with the node store's.
 */
import { describe, expect, it } from "vitest";
import {
  CompactRange,
  consistencyProof,
  decodeEntryBundle,
  encodeEntryBundle,
  hashLeaf,
  MemoryNodeStore,
  parseTilePath,
  readTile,
  rootFromSource,
  type TileId,
  TileNodeSource,
  tileIndexPath,
  tilePath,
  tilesAt,
  tileWidthAt,
  verifyConsistency,
} from "../src/index.js";

function tree(size: number): { store: MemoryNodeStore; roots: Uint8Array[] } {
  const store = new MemoryNodeStore();
  const range = CompactRange.empty();
  const roots: Uint8Array[] = [];
  for (let i = 0; i < size; i++) {
    store.put(range.append(hashLeaf(new TextEncoder().encode(`leaf ${i}`))));
    roots.push(range.root());
  }
  return { store, roots };
}

/** The tiles of the tree of `size` leaves, by path: all a reader of tiles gets. */
async function servedTiles(store: MemoryNodeStore, size: number): Promise<Map<string, Uint8Array>> {
  const served = new Map<string, Uint8Array>();
  for (const tile of tilesAt(size)) {
    served.set(tilePath(tile), await readTile(store, tile));
  }
  return served;
}

function fromTiles(served: Map<string, Uint8Array>, size: number): TileNodeSource {
  return new TileNodeSource(size, async (tile: TileId) => {
    const bytes = served.get(tilePath(tile));
    if (!bytes) {
      throw new Error(`no tile ${tilePath(tile)}`);
    }
    return bytes;
  });
}

describe("tile paths", () => {
  it("writes indexes in x-prefixed groups of three digits", () => {
    expect(tileIndexPath(0)).toBe("000");
    expect(tileIndexPath(999)).toBe("999");
    expect(tileIndexPath(1000)).toBe("x001/000");
    expect(tileIndexPath(1234067)).toBe("x001/x234/067");
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: 1, index: 3, width: 5 })).toBe("tile/1/003.p/5");
    expect(tilePath({ level: "entries", index: 1000, width: 17 })).toBe(
      "tile/entries/x001/000.p/17",
    );
  });

  it("parses exactly the canonical paths", () => {
    for (const tile of [
      { level: 0, index: 0, width: 1 },
      { level: 2, index: 1234067, width: 256 },
      { level: "entries", index: 5, width: 255 },
    ] as const) {
      expect(parseTilePath(tilePath(tile))).toEqual(tile);
    }
    for (const bad of [
      "tile/0/000.p/256",
      "tile/0/000.p/0",
      "tile/0/000.p/07",
      "tile/00/000",
      "tile/0/0000",
      "tile/0/1",
      "tile/0/x000/001",
      "tile/0/001/",
      "tile/data/000",
      "tile/64/000",
    ]) {
      expect(parseTilePath(bad), bad).toBeNull();
    }
  });

  it("gives each level's tiles their widths", () => {
    expect(tileWidthAt(0, 0, 300)).toBe(256);
    expect(tileWidthAt(0, 1, 300)).toBe(44);
    expect(tileWidthAt(0, 2, 300)).toBe(0);
    expect(tileWidthAt(1, 0, 300)).toBe(1);
    expect(tileWidthAt("entries", 1, 300)).toBe(44);
    expect(tilesAt(0)).toEqual([]);
    expect(tilesAt(513).map(tilePath)).toEqual([
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/1",
      "tile/1/000.p/2",
    ]);
  });
});

describe("entry bundles", () => {
  it("prefixes each entry with its 2-byte big-endian length", () => {
    const entries = [new Uint8Array(0), Uint8Array.of(1, 2, 3), new Uint8Array(300).fill(9)];
    const bundle = encodeEntryBundle(entries);
    expect([...bundle.subarray(0, 7)]).toEqual([0, 0, 0, 3, 1, 2, 3]);
    expect([...bundle.subarray(7, 9)]).toEqual([1, 44]);
    expect(decodeEntryBundle(bundle)).toEqual(entries);
    expect(() => decodeEntryBundle(bundle.subarray(0, 5))).toThrow(RangeError);
    expect(() => encodeEntryBundle([new Uint8Array(65536)])).toThrow(RangeError);
  });
});

describe("a tree read back from its tiles alone", () => {
  const size = 66_000;
  const { store, roots } = tree(size);

  it("gives the root at sizes around tile borders", async () => {
    for (const n of [1, 2, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, size]) {
      const served = await servedTiles(store, n);
      expect(await rootFromSource(n, fromTiles(served, n)), `size ${n}`).toEqual(roots[n - 1]);
    }
  });

  it("builds consistency proofs that equal the store's and verify", async () => {
    const served = await servedTiles(store, size);
    const source = fromTiles(served, size);
    for (const [from, to] of [
      [1, size],
      [255, 257],
      [256, 65_536],
      [300, 65_537],
      [65_536, size],
      [4_095, 66_000],
    ] as const) {
      const proof = await consistencyProof(from, to, source);
      expect(proof).toEqual(await consistencyProof(from, to, store));
      verifyConsistency(
        from,
        to,
        proof,
        roots[from - 1] as Uint8Array,
        roots[to - 1] as Uint8Array,
      );
    }
  });

  it("refuses a node past the size and a tile of the wrong length", async () => {
    const served = await servedTiles(store, 300);
    await expect(fromTiles(served, 300).getNodes([{ level: 8, index: 1 }])).rejects.toThrow(
      RangeError,
    );
    const short = new TileNodeSource(300, async () => new Uint8Array(32));
    await expect(short.getNodes([{ level: 0, index: 0 }])).rejects.toThrow(/bytes/);
  });
});
