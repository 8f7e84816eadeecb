/**
 * One user's cached log without a database: entries read back field for field from the tail and
 * from sealed blocks, a decoded recall segment held exactly as the same memories added one by
 * one, deletions (by id and by leaf index) lowering the size estimate, compaction once more than
 * half are tombstones, superseded marks, and the entries of a segment range; a log loaded from a
 * segment found by id in the segment's strings, its supersedes marked, its namespaces filtered
 * by code.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compileFilter, type MemoryFilter } from "../../src/memory-filter.js";
import { lexicalAnalyser } from "../../src/recall/lexical-analyser.js";
import { segmentEntries } from "../../src/recall/log-segments.js";
import { BLOCK_ENTRIES } from "../../src/recall/text-blocks.js";
import { UserLog } from "../../src/recall/user-log.js";
import { decodeSegment, encodeSegment } from "../../src/segment-format.js";
import { isAsciiText, type Known, leafHashOf, rowOf } from "./fixtures.js";

const CONTENTS = ["alpha Beta", "Straße", "İstanbul", "🦊 fox", "x\u0000y", "", "ΣΊΣΥΦΟΣ"];

function memories(count: number, first = 0): Known[] {
  return Array.from({ length: count }, (_, k) => ({
    id: randomUUID(),
    leafIndex: first + k,
    content: `${CONTENTS[k % CONTENTS.length]} ${k}`,
    metadata: k % 3 === 0 ? {} : { n: k, tag: k % 2 === 0 ? "even" : "odd" },
    namespace: k % 4 === 0 ? `agent/${k % 8}` : null,
  }));
}

function logOf(known: readonly Known[]): UserLog {
  const log = new UserLog(new Date(0), lexicalAnalyser("en"));
  for (const m of known) {
    log.add(rowOf(m), m.content, isAsciiText(m.content));
  }
  return log;
}

describe("UserLog entries", () => {
  it("reads back every field of each memory, from the tail and from sealed blocks", () => {
    const known = memories(BLOCK_ENTRIES + 50);
    const log = logOf(known);
    expect(log.blocks).toHaveLength(1);
    expect(log.tailStart).toBe(BLOCK_ENTRIES);
    for (const position of [0, 1, 5, BLOCK_ENTRIES - 1, BLOCK_ENTRIES, BLOCK_ENTRIES + 49]) {
      const m = known[position] as Known;
      const entry = log.entry(position);
      expect(entry).toMatchObject({
        id: m.id,
        leafIndex: m.leafIndex,
        content: m.content,
        metadata: m.metadata,
        namespace: m.namespace,
        supersedes: null,
        supersededBy: null,
        writtenBy: m.leafIndex % 2 === 0 ? { kind: "session" } : null,
      });
      expect(Buffer.from(entry.leafHash)).toEqual(Buffer.from(leafHashOf(m.id)));
      expect(log.folded(position)).toBe(m.content.toLowerCase());
      expect(log.metadataJson(position)).toBe(JSON.stringify(m.metadata));
    }
    // The leaf hash handed out is a copy.
    log.entry(0).leafHash.fill(0);
    expect(Buffer.from(log.leafHashAt(0))).toEqual(Buffer.from(leafHashOf(known[0]?.id ?? "")));
  });

  it("holds a decoded segment exactly as the same memories added one by one", () => {
    for (const contents of [["plain", "ascii", "texts"], ["Plain", "ASCII", "texts"], CONTENTS]) {
      const known = memories(contents.length).map((m, k) => ({ ...m, content: contents[k] ?? "" }));
      const one = logOf(known);
      one.sealTail(1);
      const rows = known.map((m) => rowOf(m));
      const segment = decodeSegment(
        encodeSegment(
          rows.map(({ supersededBy: _, ...entry }) => entry),
          known.map((m) => m.content),
        ),
      );
      const whole = new UserLog(new Date(0), lexicalAnalyser("en"));
      whole.addSegment(segment);
      expect(whole.bytes).toBe(one.bytes);
      expect(whole.lastLeafIndex).toBe(one.lastLeafIndex);
      for (let position = 0; position < known.length; position++) {
        expect(whole.entry(position)).toEqual(one.entry(position));
        expect(whole.folded(position)).toBe(one.folded(position));
      }
    }
  });
});

describe("UserLog deletions", () => {
  it("drops memories by id and by leaf index, each once, and lowers the estimate", () => {
    const known = memories(600);
    const log = logOf(known);
    const full = log.bytes;
    log.removeId((known[10] as Known).id);
    log.removeLeaf(20);
    log.removeLeaf(20);
    log.removeLeaf(10_000);
    log.removeId("no such id");
    expect(log.liveCount).toBe(598);
    expect(log.isLive(10)).toBe(false);
    expect(log.isLive(20)).toBe(false);
    expect(log.isLive(11)).toBe(true);
    expect(log.bytes).toBeLessThan(full);
    expect(log.liveFrom(0)).toBe(598);
    expect(log.liveFrom(15)).toBe(584);
  });

  it("compacts once more than half are tombstones: positions renumbered, estimate as a fresh log", () => {
    const known = memories(3000);
    const log = logOf(known);
    // 1 501 deletions: the last one passes half of the 3 000 and compacts.
    const deleted = new Set([0, ...known.keys()].filter((k) => k === 0 || k % 2 === 1));
    const kept = known.filter((_, k) => !deleted.has(k));
    for (const k of deleted) {
      expect(log.count).toBe(known.length);
      log.removeId((known[k] as Known).id);
    }
    expect(log.count).toBe(kept.length);
    expect(log.liveCount).toBe(kept.length);
    const positions = kept.map((_, position) => position);
    expect(positions.map((position) => log.entry(position).id)).toEqual(kept.map((m) => m.id));
    expect(positions.map((position) => log.content(position))).toEqual(kept.map((m) => m.content));
    const fresh = logOf(kept);
    fresh.sealTail(512);
    expect(log.bytes).toBe(fresh.bytes);
  });
});

describe("UserLog supersession and segment ranges", () => {
  it("marks the superseded memory once, held or not", () => {
    const [first, second] = memories(2);
    const log = new UserLog(new Date(0), lexicalAnalyser("en"));
    log.add(rowOf(first as Known), "v1", true);
    const changes = log.changes;
    log.add(rowOf(second as Known, (first as Known).id), "v2", true);
    expect(log.entry(0).supersededBy).toBe((second as Known).id);
    expect(log.entry(1).supersedes).toBe((first as Known).id);
    log.markSuperseded((first as Known).id, "someone else");
    log.markSuperseded("not held", "x");
    expect(log.entry(0).supersededBy).toBe((second as Known).id);
    expect(log.changes).toBe(changes + 2);
  });

  it("gives the live memories of a range, and refuses when a live one is not held", () => {
    const known = memories(20);
    const log = logOf(known);
    log.removeLeaf(6);
    const range = { firstLeaf: 4, endLeaf: 12 };
    const live = known.slice(4, 12).filter((m) => m.leafIndex !== 6);
    const { entries, contents } = segmentEntries(log, range, new Set(live.map((m) => m.id)));
    expect(entries.map((e) => e.leafIndex)).toEqual(live.map((m) => m.leafIndex));
    expect(contents).toEqual(live.map((m) => m.content));
    expect(() =>
      segmentEntries(log, range, new Set([...live.map((m) => m.id), (known[6] as Known).id])),
    ).toThrow(/holds 7 of the 8 live memories of leaves \[4, 12\)/);
  });
});

describe("UserLog held as segments", () => {
  /** A log of `known` loaded from one segment (supersedes set where given). */
  function segmentLog(known: readonly Known[], supersedes: (string | null)[] = []): UserLog {
    const log = new UserLog(new Date(0), lexicalAnalyser("en"));
    log.addSegment(
      decodeSegment(
        encodeSegment(
          known.map((m, k) => {
            const { supersededBy: _, ...entry } = rowOf(m, supersedes[k] ?? null);
            return entry;
          }),
          known.map((m) => m.content),
        ),
      ),
    );
    return log;
  }

  it("finds a memory by id in the segment's strings, not where another memory's metadata names it", () => {
    const known = memories(40);
    const target = known[7] as Known;
    // The newest memory's metadata holds the target's id as text.
    known[39] = { ...(known[39] as Known), metadata: { about: target.id } };
    const log = segmentLog(known);
    log.removeId(target.id);
    expect(log.isLive(7)).toBe(false);
    expect(log.isLive(39)).toBe(true);
    expect(log.liveCount).toBe(39);
    // A second removal of the same id finds nothing live.
    log.removeId(target.id);
    expect(log.liveCount).toBe(39);
    expect(log.entry(39).metadata).toEqual({ about: target.id });
  });

  it("marks what a segment's memories supersede, and filters by namespace codes and superseded flags", () => {
    const known = memories(12);
    const log = segmentLog(known, [null, null, null, null, (known[1] as Known).id]);
    expect(log.supersededCount).toBe(1);
    expect(log.entry(1).supersededBy).toBe((known[4] as Known).id);
    expect(log.entry(4).supersedes).toBe((known[1] as Known).id);
    const matching = (filter: MemoryFilter) => {
      const test = compileFilter(filter, log.filterColumns(filter));
      return known.map((_, position) => position).filter((position) => test(position));
    };
    // memories(): namespace `agent/${k % 8}` where k % 4 === 0, else null.
    expect(matching({ namespace: "agent/0" })).toEqual([0, 8]);
    expect(matching({ namespace: "agent/4" })).toEqual([4]);
    expect(matching({ namespace: "agent/9" })).toEqual([]);
    expect(matching({ namespacePrefix: "agent/" })).toEqual([0, 4, 8]);
    expect(matching({})).not.toContain(1);
    expect(matching({ includeSuperseded: true })).toContain(1);
    // Marks read back by leaf index (a cold load's): once each, unknown leaves ignored.
    log.markSupersededLeaf((known[9] as Known).leafIndex, "a-newer-id");
    log.markSupersededLeaf((known[9] as Known).leafIndex, "another-id");
    log.markSupersededLeaf(10_000, "no-such-leaf");
    expect(log.entry(9).supersededBy).toBe("a-newer-id");
    expect(log.supersededCount).toBe(2);
    expect(matching({})).not.toContain(9);
  });
});
