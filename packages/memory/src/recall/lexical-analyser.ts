/**
 * The lexical analyser of relevance ranking (docs/protocol.md §4.5 "Recall"): text → terms.
 *
 * - **Words** are the word-like segments of Unicode word boundaries (UAX #29, `Intl.Segmenter`
 *   with `granularity: "word"`), so `don't`, `e.g`, `3.14` and `1,000` are one word each. A text
 *   of ASCII characters only is segmented by {@link asciiWords}, the same rules written out for
 *   ASCII (a test checks it against `Intl.Segmenter` on random ASCII strings): the segmenter costs
 *   ~3 µs a word, the loop a tenth of that.
 * - **Folding**: a non-ASCII word is NFKC-normalised, then upper-cased and lower-cased
 *   (`String.prototype`, locale-independent), final sigma becoming sigma: Unicode full case
 *   folding but for a few letters, so `Straße` and `STRASSE` meet; U+2019 becomes `'`. ASCII
 *   words are lower-cased.
 * - **`en`**: English stop words (the `stopword` package's list) are left out of the terms and
 *   of the document length; every other word is reduced by the Porter stemmer (the `stemmer`
 *   package), so `painting`, `paints` and `painted` are one term. A query made only of stop words
 *   keeps them: its terms are its stop words, looked up as {@link STOP_TERM}-marked terms.
 * - **`none`**: the words of before: maximal runs of letters and digits (`\p{L}\p{N}`),
 *   lower-cased, no stop words, no stemming.
 * @module
 */

import { stemmer } from "stemmer";
import stopword from "stopword";

/** `RECALL_LANGUAGE`: `en` (stop words and Porter stemming) or `none` (plain words). */
export type RecallLanguage = "en" | "none";

/** The values `RECALL_LANGUAGE` takes. */
export const RECALL_LANGUAGES: readonly RecallLanguage[] = ["en", "none"];

/** A query holds at most this many distinct terms (further ones are ignored). */
export const MAX_QUERY_TERMS = 32;

/**
 * Marks a stop word's term (`STOP_TERM + word`): no stemmed term starts with it, so a stop-word
 * index never mixes with the term index.
 */
export const STOP_TERM = "\u0000";

/** What a text is made of, for ranking. */
export interface LexicalAnalyser {
  readonly language: RecallLanguage;
  /**
   * Names the analysis exactly (language, word list and stemmer versions): terms sealed under
   * another id are analysed again, so cold and warm answers stay the same.
   */
  readonly id: string;
  /**
   * Calls `term` for each word of `text` that is not a stop word, in order (repeats included),
   * and returns how many there were: the BM25 document length.
   */
  terms(text: string, term: (term: string) => void): number;
  /** Calls `term` with the {@link STOP_TERM}-marked term of each stop word of `text`. */
  stopTerms(text: string, term: (term: string) => void): void;
  /**
   * The distinct terms of a query, in first-appearance order, at most {@link MAX_QUERY_TERMS};
   * when every word is a stop word, their {@link STOP_TERM}-marked terms instead (`stop: true`).
   */
  queryTerms(query: string): { readonly terms: string[]; readonly stop: boolean };
}

const WORD_RUN = /[\p{L}\p{N}]+/gu;
const NON_ASCII = /[\u0080-\uffff]/;
const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const STOP_WORDS: ReadonlySet<string> = new Set(stopword.eng);
/** Stems remembered, at most (the map is cleared when full). */
const STEM_MEMO_ENTRIES = 65_536;

/**
 * The analyser of `language`.
 * @throws RangeError for a language not in {@link RECALL_LANGUAGES}.
 */
export function lexicalAnalyser(language: RecallLanguage): LexicalAnalyser {
  switch (language) {
    case "en":
      return englishAnalyser;
    case "none":
      return plainAnalyser;
    default:
      throw new RangeError(`unknown recall language ${JSON.stringify(language)}`);
  }
}

/**
 * Calls `word` with each word-like segment of `text` (UAX #29), folded (see the module comment).
 */
export function words(text: string, word: (folded: string) => void): void {
  if (!NON_ASCII.test(text)) {
    const lower = text.toLowerCase();
    asciiWords(lower, (start, end) => word(lower.slice(start, end)));
    return;
  }
  for (const segment of segmenter.segment(text)) {
    if (segment.isWordLike) {
      word(foldWord(segment.segment));
    }
  }
}

/** Folds one word: NFKC, U+2019 → `'`, upper- then lower-cased, final sigma → sigma. */
function foldWord(word: string): string {
  if (!NON_ASCII.test(word)) {
    return word.toLowerCase();
  }
  return word
    .normalize("NFKC")
    .replaceAll("\u2019", "'")
    .toUpperCase()
    .toLowerCase()
    .replaceAll("\u03c2", "\u03c3");
}

const LETTER = 1;
const DIGIT = 2;
const CONNECTOR = 3;
/** MidLetter `:` joins letters; MidNumLet `.` and Single_Quote `'` join letters or digits. */
const MID_LETTER = 4;
const MID_NUM_LET = 5;
/** MidNum `,` `;` joins digits. */
const MID_NUM = 6;
const OTHER = 0;

/** Word-break classes of the ASCII characters (UAX #29 Table 3), by code point. */
const ASCII_CLASS = (() => {
  const classes = new Uint8Array(128).fill(OTHER);
  for (let c = 0x41; c <= 0x5a; c++) {
    classes[c] = LETTER;
    classes[c + 0x20] = LETTER;
  }
  for (let c = 0x30; c <= 0x39; c++) {
    classes[c] = DIGIT;
  }
  classes[0x5f] = CONNECTOR;
  classes[0x3a] = MID_LETTER;
  classes[0x2e] = MID_NUM_LET;
  classes[0x27] = MID_NUM_LET;
  classes[0x2c] = MID_NUM;
  classes[0x3b] = MID_NUM;
  return classes;
})();

/**
 * The word-like segments of an ASCII `text` (UAX #29 word boundaries, as ICU implements them):
 * runs of letters, digits and `_` (WB5, WB8–WB10, WB13a/b), joined across one `:`, `.` or `'`
 * between two letters (WB6/7) and across one `,`, `;`, `.` or `'` between two digits
 * (WB11/12). A lone `_` is not word-like (ICU gives it no word status). Calls `word` with each
 * segment's [start, end).
 */
export function asciiWords(text: string, word: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const kind = ASCII_CLASS[text.charCodeAt(i)] as number;
    if (kind !== LETTER && kind !== DIGIT && kind !== CONNECTOR) {
      i++;
      continue;
    }
    const start = i;
    let last = kind;
    i++;
    while (i < n) {
      const next = ASCII_CLASS[text.charCodeAt(i)] as number;
      if (next === LETTER || next === DIGIT || next === CONNECTOR) {
        last = next;
        i++;
        continue;
      }
      const after = i + 1 < n ? (ASCII_CLASS[text.charCodeAt(i + 1)] as number) : OTHER;
      const joinsLetters =
        last === LETTER && after === LETTER && (next === MID_LETTER || next === MID_NUM_LET);
      const joinsDigits =
        last === DIGIT && after === DIGIT && (next === MID_NUM || next === MID_NUM_LET);
      if (!joinsLetters && !joinsDigits) {
        break;
      }
      i++;
    }
    if (i - start > 1 || kind !== CONNECTOR) {
      word(start, i);
    }
  }
}

const stems = new Map<string, string>();

/** The Porter stem of a folded word, remembered. */
function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= STEM_MEMO_ENTRIES) {
      stems.clear();
    }
    stemmed = stemmer(word);
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** Distinct values of `values`, in order, at most {@link MAX_QUERY_TERMS}. */
function distinct(values: readonly string[]): string[] {
  return [...new Set(values)].slice(0, MAX_QUERY_TERMS);
}

const englishAnalyser: LexicalAnalyser = {
  language: "en",
  id: "en/uax29-nfkc-fold/stopword-3.1.5-eng/stemmer-2.0.1-porter",
  terms(text, term) {
    let length = 0;
    words(text, (word) => {
      if (!STOP_WORDS.has(word)) {
        length++;
        term(stem(word));
      }
    });
    return length;
  },
  stopTerms(text, term) {
    words(text, (word) => {
      if (STOP_WORDS.has(word)) {
        term(STOP_TERM + word);
      }
    });
  },
  queryTerms(query) {
    const content: string[] = [];
    const stop: string[] = [];
    words(query, (word) => {
      if (STOP_WORDS.has(word)) {
        stop.push(STOP_TERM + word);
      } else {
        content.push(stem(word));
      }
    });
    return content.length > 0 || stop.length === 0
      ? { terms: distinct(content), stop: false }
      : { terms: distinct(stop), stop: true };
  },
};

const plainAnalyser: LexicalAnalyser = {
  language: "none",
  id: "none/letter-digit-runs-lowercase",
  terms(text, term) {
    let length = 0;
    for (const match of text.toLowerCase().matchAll(WORD_RUN)) {
      length++;
      term(match[0]);
    }
    return length;
  },
  stopTerms() {},
  queryTerms(query) {
    return {
      terms: distinct([...query.toLowerCase().matchAll(WORD_RUN)].map((m) => m[0])),
      stop: false,
    };
  },
};
