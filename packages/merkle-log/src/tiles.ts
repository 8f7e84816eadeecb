/**
 * Tiles of an RFC 6962 / RFC 9162 tree (C2SP tlog-tiles, tile height 8): paths, contents, entry
 * bundles, and a node source that reads a tree back from its tiles alone, so roots and proofs can
 * be recomputed by anyone holding the tiles (docs/protocol.md §13.4 "Tiles").
 * A tile at level L, index N holds the hashes of the perfect subtrees of 256^L leaves numbered
 * N·256 … N·256 + W − 1 (level 0: leaf hashes), 32 bytes each; full tiles hold 256, the rightmost
 * tile of a level holds W < 256 (a partial tile).
 * @module
 */
import { assertCount } from "./_bits.js";
import { EMPTY_ROOT, type Hash, hashChildren } from "./hasher.js";
import { type NodeHashSource, type NodeId, rangeNodes } from "./nodes.js";

/** Tree levels per tile level (C2SP tlog-tiles: 8). */
export const TILE_HEIGHT = 8;
/** Hashes (or entries) in a full tile. */
export const TILE_WIDTH = 256;

/** A tile: level (`entries` for an entry bundle), index and width (1–256). */
export interface TileId {
  readonly level: number | "entries";
  readonly index: number;
  readonly width: number;
}

/**
 * The tile index as the path writes it: 3-digit groups, all but the last prefixed by `x`
 * (1234067 → `x001/x234/067`).
 * @throws RangeError when `index` is not an integer in [0, 2^53 − 1].
 */
export function tileIndexPath(index: number): string {
  assertCount(index, "index");
  let groups = [String(index % 1000).padStart(3, "0")];
  for (let rest = Math.floor(index / 1000); rest > 0; rest = Math.floor(rest / 1000)) {
    groups = [`x${String(rest % 1000).padStart(3, "0")}`, ...groups];
  }
  return groups.join("/");
}

/**
 * The path of a tile below the log's prefix: `tile/<L>/<N>[.p/<W>]`, or
 * `tile/entries/<N>[.p/<W>]` for an entry bundle (C2SP tlog-tiles).
 * @throws RangeError on a level that is not an integer in [0, 63] or "entries", a bad index, or a
 *   width outside 1–256.
 */
export function tilePath(tile: TileId): string {
  const { level, index, width } = tile;
  if (level !== "entries" && !(Number.isInteger(level) && level >= 0 && level < 64)) {
    throw new RangeError(`level must be an integer in [0, 63] or "entries", got ${level}`);
  }
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) {
    throw new RangeError(`width must be an integer in [1, 256], got ${width}`);
  }
  const partial = width < TILE_WIDTH ? `.p/${width}` : "";
  return `tile/${level}/${tileIndexPath(index)}${partial}`;
}

const PATH =
  /^tile\/(0|[1-9][0-9]?|entries)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * Parses a tile path (the inverse of {@link tilePath}); only the canonical spelling is accepted.
 * @returns the tile, or null when `path` is not a tile path.
 */
export function parseTilePath(path: string): TileId | null {
  const match = PATH.exec(path);
  if (!match) {
    return null;
  }
  const [, levelText, indexText, widthText] = match as unknown as [string, string, string, string?];
  const index = Number(indexText.replaceAll("x", "").replaceAll("/", ""));
  const level: TileId["level"] = levelText === "entries" ? "entries" : Number(levelText);
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText);
  if (!Number.isSafeInteger(index)) {
    return null;
  }
  const tile: TileId = { level, index, width };
  try {
    return tilePath(tile) === path ? tile : null;
  } catch {
    return null;
  }
}

/**
 * The width a tile has in the tree of `treeSize` leaves: 256, or W < 256 for the rightmost tile of
 * its level, or 0 when the tile does not exist yet at that size. Entry bundles are as level 0.
 * @throws RangeError on a size or index that is not an integer in [0, 2^53 − 1].
 */
export function tileWidthAt(level: number | "entries", index: number, treeSize: number): number {
  assertCount(treeSize, "treeSize");
  assertCount(index, "index");
  const hashes = Math.floor(treeSize / TILE_WIDTH ** (level === "entries" ? 0 : level));
  return Math.max(0, Math.min(TILE_WIDTH, hashes - index * TILE_WIDTH));
}

/**
 * Every hash tile of the tree of `treeSize` leaves, lowest level first, left to right.
 * @throws RangeError when `treeSize` is not an integer in [0, 2^53 − 1].
 */
export function tilesAt(treeSize: number): TileId[] {
  assertCount(treeSize, "treeSize");
  const tiles: TileId[] = [];
  for (let level = 0; TILE_WIDTH ** level <= treeSize; level++) {
    for (let index = 0; ; index++) {
      const width = tileWidthAt(level, index, treeSize);
      if (width === 0) {
        break;
      }
      tiles.push({ level, index, width });
    }
  }
  return tiles;
}

/**
 * The stored perfect subtrees a hash tile holds, in order: level 8L, indices N·256 … N·256 + W − 1.
 * @throws RangeError on an entry bundle.
 */
export function tileNodeIds(tile: TileId): NodeId[] {
  if (tile.level === "entries") {
    throw new RangeError("an entry bundle holds entries, not hashes");
  }
  const level = tile.level * TILE_HEIGHT;
  return Array.from({ length: tile.width }, (_, i) => ({
    level,
    index: tile.index * TILE_WIDTH + i,
  }));
}

/**
 * A hash tile's bytes: its W hashes concatenated (32·W bytes), read with ONE `source.getNodes`.
 * @throws whatever `source.getNodes` throws (a node the tree does not hold yet).
 */
export async function readTile(source: NodeHashSource, tile: TileId): Promise<Uint8Array> {
  const hashes = await source.getNodes(tileNodeIds(tile));
  const out = new Uint8Array(hashes.length * 32);
  for (const [i, hash] of hashes.entries()) {
    out.set(hash, i * 32);
  }
  return out;
}

/**
 * An entry bundle: each entry prefixed by its length as a 2-byte big-endian integer.
 * @throws RangeError on an entry longer than 65 535 bytes.
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(entries.reduce((n, e) => n + 2 + e.length, 0));
  let at = 0;
  for (const entry of entries) {
    if (entry.length > 0xffff) {
      throw new RangeError(`an entry holds at most 65 535 bytes, got ${entry.length}`);
    }
    out[at] = entry.length >> 8;
    out[at + 1] = entry.length & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

/**
 * The entries of an entry bundle ({@link encodeEntryBundle}).
 * @throws RangeError when the bytes end inside a length or an entry.
 */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.length) {
    if (at + 2 > bundle.length) {
      throw new RangeError("entry bundle ends inside a length");
    }
    const length = ((bundle[at] as number) << 8) | (bundle[at + 1] as number);
    if (at + 2 + length > bundle.length) {
      throw new RangeError("entry bundle ends inside an entry");
    }
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/**
 * The RFC 9162 §2.1.1 root of the first `treeSize` leaves from stored perfect subtrees (the
 * compact range of `treeSize`, folded right to left), with ONE `source.getNodes` call.
 * @throws RangeError on a bad size; whatever `source.getNodes` throws.
 */
export async function rootFromSource(treeSize: number, source: NodeHashSource): Promise<Hash> {
  const hashes = await source.getNodes(rangeNodes(0, treeSize));
  let root = hashes.at(-1);
  if (root === undefined) {
    return EMPTY_ROOT.slice();
  }
  for (let i = hashes.length - 2; i >= 0; i--) {
    root = hashChildren(hashes[i] as Hash, root);
  }
  return root;
}

/** Fetches a hash tile's bytes (e.g. over HTTP from `<prefix>/` + {@link tilePath}). */
export type TileFetcher = (tile: TileId) => Promise<Uint8Array>;

/**
 * A {@link NodeHashSource} over the tiles of the tree of `treeSize` leaves: a perfect subtree at
 * level ℓ is read from the tile at level ⌊ℓ/8⌋, directly when ℓ is a multiple of 8, else hashed
 * from the 2^(ℓ mod 8) tile hashes below it. So `consistencyProof`, `inclusionProof` and
 * {@link rootFromSource} work from tiles alone. Each tile is fetched once.
 */
export class TileNodeSource implements NodeHashSource {
  readonly #treeSize: number;
  readonly #fetch: TileFetcher;
  readonly #tiles = new Map<string, Promise<Uint8Array>>();

  constructor(treeSize: number, fetch: TileFetcher) {
    assertCount(treeSize, "treeSize");
    this.#treeSize = treeSize;
    this.#fetch = fetch;
  }

  /**
   * The hashes of `ids`, in order.
   * @throws RangeError for a node outside the tree of `treeSize` leaves, or a tile of the wrong
   *   length; whatever the fetcher throws.
   */
  async getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]> {
    return Promise.all(ids.map((id) => this.#node(id.level, id.index)));
  }

  async #node(level: number, index: number): Promise<Hash> {
    if ((index + 1) * 2 ** level > this.#treeSize) {
      throw new RangeError(
        `node (${level}, ${index}) is not complete in a tree of ${this.#treeSize}`,
      );
    }
    const tileLevel = Math.floor(level / TILE_HEIGHT);
    const below = level - tileLevel * TILE_HEIGHT;
    const first = index * 2 ** below;
    const hashes: Hash[] = [];
    for (let i = first; i < first + 2 ** below; i++) {
      hashes.push(await this.#tileHash(tileLevel, i));
    }
    while (hashes.length > 1) {
      for (let i = 0; i < hashes.length / 2; i++) {
        hashes[i] = hashChildren(hashes[2 * i] as Hash, hashes[2 * i + 1] as Hash);
      }
      hashes.length /= 2;
    }
    return hashes[0] as Hash;
  }

  async #tileHash(tileLevel: number, position: number): Promise<Hash> {
    const index = Math.floor(position / TILE_WIDTH);
    const width = tileWidthAt(tileLevel, index, this.#treeSize);
    const key = `${tileLevel}/${index}`;
    let bytes = this.#tiles.get(key);
    if (!bytes) {
      bytes = this.#fetch({ level: tileLevel, index, width }).then((data) => {
        if (data.length !== width * 32) {
          throw new RangeError(`tile ${key} has ${data.length} bytes, expected ${width * 32}`);
        }
        return data;
      });
      this.#tiles.set(key, bytes);
    }
    const offset = (position % TILE_WIDTH) * 32;
    return (await bytes).slice(offset, offset + 32);
  }
}
