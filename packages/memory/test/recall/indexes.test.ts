/**
 * The recall indexes without a database: postings counting occurrences per position, position
 * lists and postings reporting exactly the bytes they grew by, equality indexes keeping scalars
 * only, the smallest list answering several conditions, at most 16 equality indexes per log, and
 * indexes extended (not rebuilt) as memories arrive.
 */
import { describe, expect, it } from "vitest";
import {
  type IndexedLog,
  LogIndexes,
  MAX_VALUE_INDEXES,
  PositionList,
  Postings,
  ValueIndex,
} from "../../src/recall/indexes.js";
import { lexicalAnalyser } from "../../src/recall/lexical-analyser.js";

/** A log of plain arrays; `dead` positions are tombstones. */
function plainLog(
  texts: string[],
  metadata: Record<string, unknown>[],
  dead: ReadonlySet<number> = new Set(),
): IndexedLog & { texts: string[]; metadata: Record<string, unknown>[] } {
  return {
    texts,
    metadata,
    get count() {
      return texts.length;
    },
    namespaceAt: (position) => (position % 2 === 0 ? "even" : null),
    isLive: (position) => !dead.has(position),
    content: (position) => texts[position] as string,
    parsedMetadata: () => metadata,
  };
}

describe("postings and position lists", () => {
  it("count occurrences per position and report the bytes they grew by", () => {
    const postings = new Postings();
    expect(postings.add(3)).toBe(0);
    expect(postings.add(3)).toBe(0);
    const grown = [5, 6, 7, 8].map((p) => postings.add(p));
    expect(grown).toEqual([0, 0, 0, 4 * 6]);
    expect([...postings.positions.subarray(0, postings.length)]).toEqual([3, 5, 6, 7, 8]);
    expect([...postings.counts.subarray(0, postings.length)]).toEqual([2, 1, 1, 1, 1]);

    const list = new PositionList();
    expect([1, 2, 3, 4, 5].map((p) => list.add(p))).toEqual([0, 0, 0, 0, 5 * 4]);
    expect([...list.positions.subarray(0, list.length)]).toEqual([1, 2, 3, 4, 5]);
  });

  it("a term counted 65 535 times at one position stays at 65 535", () => {
    const postings = new Postings();
    for (let i = 0; i < 70_000; i++) {
      postings.add(0);
    }
    expect(postings.counts[0]).toBe(0xffff);
  });
});

describe("equality indexes", () => {
  it("keep scalar values only, as SameValueZero keys", () => {
    const index = new ValueIndex();
    for (const [position, value] of ["a", 1, true, null, { x: 1 }, [1], undefined, "a"].entries()) {
      index.add(position, value);
    }
    expect([...index.values.keys()]).toEqual(["a", 1, true, null]);
    expect(index.values.get("a")?.length).toBe(2);
    expect(index.bytes).toBeGreaterThan(0);
  });

  it("answer several conditions with the smallest list, skip tombstones, extend as memories arrive", () => {
    const log = plainLog(
      ["a", "b", "c", "d"],
      [{ k: "x", j: 1 }, { k: "x" }, { k: "x", j: 1 }, { k: "y" }],
      new Set([2]),
    );
    const indexes = new LogIndexes(lexicalAnalyser("en"));
    const both = [
      { field: { kind: "metadata", key: "k" }, value: "x" },
      { field: { kind: "metadata", key: "j" }, value: 1 },
    ] as const;
    const first = indexes.positionsWhere(log, both);
    expect([...(first?.positions.subarray(0, first.length) ?? [])]).toEqual([0]);
    expect(indexes.bytes).toBeGreaterThan(0);
    log.texts.push("e");
    log.metadata.push({ k: "x", j: 1 });
    const second = indexes.positionsWhere(log, both);
    expect([...(second?.positions.subarray(0, second.length) ?? [])]).toEqual([0, 4]);
    const namespace = indexes.positionsWhere(log, [
      { field: { kind: "namespace" }, value: "even" },
    ]);
    expect([...(namespace?.positions.subarray(0, namespace.length) ?? [])]).toEqual([0, 4]);
    expect(indexes.positionsWhere(log, [])).toBeNull();
    expect(
      indexes.positionsWhere(log, [{ field: { kind: "metadata", key: "k" }, value: "none" }])
        ?.length,
    ).toBe(0);
  });

  it("build at most 16 per log; a further field is scanned", () => {
    const log = plainLog(["a"], [{}]);
    const indexes = new LogIndexes(lexicalAnalyser("en"));
    for (let i = 0; i < MAX_VALUE_INDEXES - 1; i++) {
      expect(
        indexes.positionsWhere(log, [{ field: { kind: "metadata", key: `k${i}` }, value: 1 }]),
      ).not.toBeNull();
    }
    expect(
      indexes.positionsWhere(log, [{ field: { kind: "namespace" }, value: "x" }]),
    ).not.toBeNull();
    expect(
      indexes.positionsWhere(log, [{ field: { kind: "metadata", key: "one more" }, value: 1 }]),
    ).toBeNull();
  });
});

describe("the inverted index", () => {
  it("indexes the analyser's terms of live memories with their lengths, extended as memories arrive", () => {
    const log = plainLog(["Cat-food, cats", "the dog's 42", "cat"], [{}, {}, {}], new Set([2]));
    const indexes = new LogIndexes(lexicalAnalyser("en"));
    const index = indexes.termIndex(log);
    const postingsOf = (term: string) => {
      const p = index.terms.get(term);
      return p
        ? {
            positions: [...p.positions.subarray(0, p.length)],
            counts: [...p.counts.subarray(0, p.length)],
          }
        : null;
    };
    expect([...index.terms.keys()].sort()).toEqual(["42", "cat", "dog'", "food"]);
    expect(postingsOf("cat")).toEqual({ positions: [0], counts: [2] });
    expect(index.lengths).toEqual([3, 2]);
    expect(index.liveLength).toBe(5);
    log.texts.push("the cat");
    expect(indexes.termIndex(log)).toBe(index);
    expect(postingsOf("cat")).toEqual({ positions: [0, 3], counts: [2, 1] });
    expect(index.indexed).toBe(4);
    expect(index.lengths).toEqual([3, 2, 0, 1]);
    indexes.forget(0);
    expect(index.liveLength).toBe(3);
    const stops = indexes.stopIndex(log);
    expect([...stops.terms.keys()]).toEqual(["\u0000the"]);
    expect(stops.terms.get("\u0000the")?.length).toBe(2);
  });
});
