/**
 * One user's cached log without a database: entries read back field for field from the tail and
 * from sealed blocks, a decoded recall segment held exactly as the same memories added one by
 * one, deletions (by id and by leaf index) lowering the size estimate, compaction once more than
 * half are tombstones, superseded marks, and the entries of a segment range.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
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
      expect(log.ids).toHaveLength(known.length);
      log.removeId((known[k] as Known).id);
    }
    expect(log.ids).toHaveLength(kept.length);
    expect(log.liveCount).toBe(kept.length);
    expect(log.ids.map((_, position) => log.entry(position).id)).toEqual(kept.map((m) => m.id));
    expect(log.ids.map((_, position) => log.content(position))).toEqual(kept.map((m) => m.content));
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
