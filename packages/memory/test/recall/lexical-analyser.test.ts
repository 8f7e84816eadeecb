/**
 * The lexical analyser of relevance ranking: UAX #29 words (the ASCII loop against
 * `Intl.Segmenter`), folding, English stop words and Porter stems, the stop-word-only query
 * fallback, and the `none` language's plain words.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  asciiWords,
  lexicalAnalyser,
  MAX_QUERY_TERMS,
  STOP_TERM,
  words,
} from "../../src/recall/lexical-analyser.js";

const segmenter = new Intl.Segmenter("en", { granularity: "word" });

/** The word-like segments of `text` as Intl.Segmenter gives them. */
function segmenterWords(text: string): string[] {
  return [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
}

function asciiSegments(text: string): string[] {
  const out: string[] = [];
  asciiWords(text, (start, end) => out.push(text.slice(start, end)));
  return out;
}

function analysed(language: "en" | "none", text: string): { terms: string[]; length: number } {
  const terms: string[] = [];
  const length = lexicalAnalyser(language).terms(text, (term) => terms.push(term));
  return { terms, length };
}

describe("words (UAX #29)", () => {
  it("the ASCII loop finds exactly the word-like segments of Intl.Segmenter", () => {
    // Weighted towards the characters the rules treat specially.
    const char = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(..."abcXYZ019") },
      { weight: 4, arbitrary: fc.constantFrom(..."_:.',; -\n\r\t") },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) },
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(asciiSegments(text)).toEqual(segmenterWords(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it("keeps contractions, abbreviations and numbers whole", () => {
    const found: string[] = [];
    words("Don't stop: e.g. 3.14 or 1,000 U.S. snake_case __ _ a:b", (w) => found.push(w));
    expect(found).toEqual([
      "don't",
      "stop",
      "e.g",
      "3.14",
      "or",
      "1,000",
      "u.s",
      "snake_case",
      "__",
      "a:b",
    ]);
  });

  it("folds non-ASCII words: NFKC, full case folding, U+2019", () => {
    const found: string[] = [];
    words("STRASSE Straße ﬁne ΣΊΣΥΦΟΣ σίσυφος don’t Ｗｉｄｅ café", (w) => found.push(w));
    expect(found).toEqual([
      "strasse",
      "strasse",
      "fine",
      "σίσυφοσ",
      "σίσυφοσ",
      "don't",
      "wide",
      "café",
    ]);
  });

  it("segments scripts without spaces by dictionary (Intl.Segmenter)", () => {
    const found: string[] = [];
    words("東京に行きました", (w) => found.push(w));
    expect(found.length).toBeGreaterThan(1);
    expect(found.join("")).toBe("東京に行きました");
  });
});

describe("en", () => {
  it("leaves stop words out of the terms and the length, and stems the rest", () => {
    expect(analysed("en", "She was painting the sunsets, and I painted them too")).toEqual({
      terms: ["she", "paint", "sunset", "paint"],
      length: 4,
    });
  });

  it("query terms are distinct stems in order, at most 32", () => {
    const analyser = lexicalAnalyser("en");
    expect(analyser.queryTerms("When did Caroline go to the support groups? support!")).toEqual({
      terms: ["when", "carolin", "go", "support", "group"],
      stop: false,
    });
    const many = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    expect(analyser.queryTerms(many).terms).toHaveLength(MAX_QUERY_TERMS);
  });

  it("a query of stop words only keeps them, marked", () => {
    const analyser = lexicalAnalyser("en");
    expect(analyser.queryTerms("Who is it? who")).toEqual({
      terms: [`${STOP_TERM}who`, `${STOP_TERM}is`, `${STOP_TERM}it`],
      stop: true,
    });
    const stops: string[] = [];
    analyser.stopTerms("Who knows what it is", (t) => stops.push(t));
    expect(stops).toEqual([
      `${STOP_TERM}who`,
      `${STOP_TERM}what`,
      `${STOP_TERM}it`,
      `${STOP_TERM}is`,
    ]);
    expect(analyser.queryTerms("?! …")).toEqual({ terms: [], stop: false });
  });

  it("its id names the installed versions of the word list and the stemmer", () => {
    const require = createRequire(import.meta.url);
    const version = (name: string) =>
      (
        JSON.parse(
          readFileSync(
            require.resolve(`${name}/package.json`, {
              paths: [`${import.meta.dirname}/../../src`],
            }),
            "utf8",
          ),
        ) as { version: string }
      ).version;
    const { id } = lexicalAnalyser("en");
    expect(id).toContain(`stopword-${version("stopword")}`);
    expect(id).toContain(`stemmer-${version("stemmer")}`);
  });
});

describe("none", () => {
  it("terms are lower-cased runs of letters and digits, every one counted", () => {
    expect(analysed("none", "The cat's 2 hats, the CAT")).toEqual({
      terms: ["the", "cat", "s", "2", "hats", "the", "cat"],
      length: 7,
    });
    expect(lexicalAnalyser("none").queryTerms("the THE cat")).toEqual({
      terms: ["the", "cat"],
      stop: false,
    });
  });

  it("an unknown language is refused", () => {
    expect(() => lexicalAnalyser("fr" as "en")).toThrow(RangeError);
  });
});
