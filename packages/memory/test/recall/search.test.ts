/**
 * Recall over a cached log without a database, against answers computed by definition: recency
 * pages equal to a plain newest-first scan of the live memories (substring queries over text
 * blocks and the tail, and filter-only queries answered from an equality index) through appends,
 * deletions and compaction; relevance pages equal to BM25 computed over the live plaintexts,
 * page after page through cursors.
 */
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { stemmer } from "stemmer";
import stopword from "stopword";
import { describe, expect, it } from "vitest";
import { lexicalAnalyser, type RecallLanguage } from "../../src/recall/lexical-analyser.js";
import { scan } from "../../src/recall/search.js";
import type { RecallQuery } from "../../src/recall/types.js";
import { UserLog } from "../../src/recall/user-log.js";
import { isAsciiText, type Known, prng, rowOf } from "./fixtures.js";

// Mixed case, non-ASCII (two-byte strings, lower-casing that changes length or depends on
// context: İ, final sigma), astral characters, NUL and newline (the block separator is NUL).
const WORDS = [
  "alpha",
  "Beta",
  "GAMMA",
  "delta",
  "Straße",
  "İstanbul",
  "ΣΊΣΥΦΟΣ",
  "naïve",
  "🦊fox",
  "記憶",
  "x\u0000y",
  "line\nbreak",
  "a",
  "b",
];
const METADATA: Record<string, unknown>[] = [{}, {}, { source: "a" }, { source: "b", tags: ["x"] }];
const NAMESPACES = [null, null, "agent/a", "agent/b"];

/** The recency answer by definition: a newest-first scan of the live memories. */
function reference(live: readonly Known[], query: RecallQuery) {
  const needle = query.caseSensitive ? (query.query ?? "") : (query.query ?? "").toLowerCase();
  const before = query.after?.leafIndex ?? Number.POSITIVE_INFINITY;
  const items: Known[] = [];
  let scanned = 0;
  for (let i = live.length - 1; i >= 0 && items.length <= query.limit; i--) {
    const m = live[i] as Known;
    scanned++;
    const text = query.caseSensitive ? m.content : m.content.toLowerCase();
    const filter = Object.entries(query.filter.metadata ?? {});
    if (
      m.leafIndex < before &&
      text.includes(needle) &&
      (query.filter.namespace === undefined || m.namespace === query.filter.namespace) &&
      filter.every(([k, v]) => Object.hasOwn(m.metadata, k) && isDeepStrictEqual(m.metadata[k], v))
    ) {
      items.push(m);
    }
  }
  return { items: items.slice(0, query.limit), scanned, more: items.length > query.limit };
}

describe("recency recall over a cached log", () => {
  it("answers exactly as a plain scan through appends, deletions and compaction", () => {
    const random = prng(20261122);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const log = new UserLog(new Date(0), lexicalAnalyser("en"));
    const live: Known[] = [];
    let next = 0;
    const write = (count: number) => {
      for (let i = 0; i < count; i++) {
        const words = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(WORDS));
        const m: Known = {
          id: randomUUID(),
          leafIndex: next++,
          content: words.join(random() < 0.5 ? " " : ""),
          metadata: { ...pick(METADATA) },
          namespace: pick(NAMESPACES),
        };
        log.add(rowOf(m), m.content, isAsciiText(m.content));
        live.push(m);
      }
      log.sealTail(512);
    };
    const check = (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        const source = pick(live).content;
        const start = Math.floor(random() * source.length);
        const filterOnly = random() < 0.25; // answered from an equality index
        const query: RecallQuery = {
          query: filterOnly
            ? undefined
            : random() < 0.7
              ? source.slice(start, start + 1 + Math.floor(random() * 8)) || "a"
              : pick([...WORDS, "ß", "ss", "i̇", "σ", "ς", "\u0000", "a\u0000b", "zzz"]),
          caseSensitive: random() < 0.3,
          filter: {
            metadata: filterOnly || random() < 0.2 ? pick(METADATA.slice(1)) : undefined,
            namespace: random() < 0.2 ? (pick(NAMESPACES) ?? undefined) : undefined,
          },
          rank: "recency",
          limit: pick([1, 2, 5, 20, 200]),
          after:
            random() < 0.2
              ? { rank: "recency", leafIndex: Math.floor(random() * next) }
              : undefined,
        };
        const got = scan(log, query);
        const want = reference(live, query);
        expect({
          query,
          more: got.more,
          items: got.items.map((e) => e.id),
          ...(query.after === undefined ? { scanned: got.scanned } : {}),
        }).toEqual({
          query,
          more: want.more,
          items: want.items.map((m) => m.id),
          ...(query.after === undefined ? { scanned: want.scanned } : {}),
        });
        for (const [i, entry] of got.items.entries()) {
          const known = want.items[i] as Known;
          expect(entry.content).toBe(known.content);
          expect(entry.metadata).toEqual(known.metadata);
        }
      }
    };
    const deleteSome = (count: number) => {
      for (let i = 0; i < count; i++) {
        const victim = live.splice(Math.floor(random() * live.length), 1)[0] as Known;
        if (random() < 0.5) {
          log.removeId(victim.id);
        } else {
          log.removeLeaf(victim.leafIndex);
        }
      }
    };

    write(5000); // one full block, then a sealed tail of 904
    check(150);
    write(300);
    check(60);
    deleteSome(80);
    check(60);
    write(700);
    check(60);
    const before = log.bytes;
    deleteSome(3400); // more than half: compaction
    check(100);
    expect(log.bytes).toBeLessThan(before / 2);
  });

  it("answers an empty page for limit 0 and nothing for a log without memories", () => {
    const log = new UserLog(new Date(0), lexicalAnalyser("en"));
    const query: RecallQuery = { caseSensitive: false, filter: {}, rank: "recency", limit: 5 };
    expect(scan(log, query)).toEqual({ items: [], scanned: 0, more: false });
    log.add(
      rowOf({ id: randomUUID(), leafIndex: 0, content: "x", metadata: {}, namespace: null }),
      "x",
      true,
    );
    expect(scan(log, { ...query, limit: 0 })).toEqual({ items: [], scanned: 0, more: false });
    expect(scan(log, query).items).toHaveLength(1);
  });
});

describe.each<RecallLanguage>(["en", "none"])(
  "relevance recall over a cached log (%s)",
  (language) => {
    const WORDS_R = [
      "Cat",
      "dog",
      "bird",
      "cat-food",
      "caté",
      "CATS",
      "fish",
      "dog's",
      "x1",
      "42",
      "the",
      "is",
      "painting",
      "painted",
      "ΣΊΣΥΦΟΣ",
    ];
    const stops = new Set(stopword.eng);
    const segmenter = new Intl.Segmenter("en", { granularity: "word" });

    /** The words of `text` by definition: the plain runs (`none`), or folded UAX #29 words (`en`). */
    function wordsOf(text: string): string[] {
      if (language === "none") {
        return [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);
      }
      return [...segmenter.segment(text)]
        .filter((s) => s.isWordLike)
        .map((s) => s.segment.normalize("NFKC").toUpperCase().toLowerCase().replaceAll("ς", "σ"));
    }

    /** Content terms (stems of the words that are not stop words) and stop words of `text`. */
    function analyse(text: string): { terms: string[]; stops: string[] } {
      const words = wordsOf(text);
      if (language === "none") {
        return { terms: words, stops: [] };
      }
      return {
        terms: words.filter((w) => !stops.has(w)).map((w) => stemmer(w)),
        stops: words.filter((w) => stops.has(w)),
      };
    }

    /**
     * BM25 by definition (relevance.ts) over the live plaintexts, highest score first; document
     * length in content terms; a query of stop words only scores its stop words.
     */
    function bm25(live: readonly Known[], query: string): { id: string; score: number }[] {
      const q = analyse(query);
      const stopOnly = q.terms.length === 0;
      const terms = [...new Set(stopOnly ? q.stops : q.terms)];
      const docs = live.map((m) => {
        const a = analyse(m.content);
        return { ...m, tokens: stopOnly ? a.stops : a.terms, length: a.terms.length };
      });
      const avg = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
      const scored = docs.map((d) => {
        let score = 0;
        for (const term of terms) {
          const tf = d.tokens.filter((x) => x === term).length;
          const df = docs.filter((o) => o.tokens.includes(term)).length;
          if (tf > 0) {
            const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
            score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * d.length) / (avg || 1)));
          }
        }
        return { id: d.id, leafIndex: d.leafIndex, score };
      });
      return scored
        .filter((d) => d.score > 0)
        .sort((a, b) => b.score - a.score || b.leafIndex - a.leafIndex)
        .map(({ id, score }) => ({ id, score }));
    }

    it("scores and orders exactly as BM25 over the live plaintexts, through appends, deletions and cursors", () => {
      const random = prng(7);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
      const log = new UserLog(new Date(0), lexicalAnalyser(language));
      const live: Known[] = [];
      const write = (count: number) => {
        for (let i = 0; i < count; i++) {
          const content = Array.from({ length: 1 + Math.floor(random() * 9) }, () =>
            pick(WORDS_R),
          ).join(pick([" ", ", ", "-", "\n"]));
          const m: Known = {
            id: randomUUID(),
            leafIndex: live.length === 0 ? 0 : (live.at(-1) as Known).leafIndex + 1,
            content,
            metadata: {},
            namespace: null,
          };
          log.add(rowOf(m), content, isAsciiText(content));
          live.push(m);
        }
      };
      const queries = [
        "cat",
        "dog bird",
        "CAT-FOOD",
        "caté 42",
        "cats x1 fish",
        "zebra",
        "paints",
        "the is",
        "σίσυφος",
      ];
      const check = () => {
        for (const query of queries) {
          const want = bm25(live, query);
          const got: { id: string; score: number }[] = [];
          let after: RecallQuery["after"];
          for (;;) {
            const page = scan(log, {
              query,
              caseSensitive: false,
              filter: {},
              rank: "relevance",
              limit: 7,
              after,
            });
            expect(page.scanned).toBe(live.length);
            got.push(...page.items.map((e) => ({ id: e.id, score: e.score as number })));
            const last = page.items.at(-1);
            if (!page.more || !last) {
              break;
            }
            after = { rank: "relevance", score: last.score as number, leafIndex: last.leafIndex };
          }
          expect(
            got.map((g) => g.id),
            query,
          ).toEqual(want.map((w) => w.id));
          for (const [i, g] of got.entries()) {
            expect(g.score).toBeCloseTo((want[i] as { score: number }).score, 9);
          }
        }
      };
      write(150);
      check();
      write(40);
      for (let i = 0; i < 30; i++) {
        const victim = live.splice(Math.floor(random() * live.length), 1)[0] as Known;
        log.removeId(victim.id);
      }
      check();
      // Stems and stop words matter in `en` only.
      const painted = bm25(live, "paints").length;
      expect(painted > 0).toBe(language === "en");
    });
  },
);
