/**
 * Relevance ranking of recall (`rank: "relevance"`, docs/protocol.md §4): Okapi BM25 over the
 * decrypted texts held in the recall cache, computed at query time (no index is persisted, so no
 * plaintext reaches the disk). Terms are the query's runs of letters and digits, lower-cased; a
 * term occurs in a text where it appears with no letter or digit right before or after it.
 * Document length is counted in characters (so `avgdl` too), a standard BM25 variant.
 * Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009), eq. 3.
 * @module
 */

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation. */
export const BM25_B = 0.75;

const WORD_CHAR = /[\p{L}\p{N}]/u;
const TERM = /[\p{L}\p{N}]+/gu;

/** The distinct terms of `query`, lower-cased, in first-appearance order; at most 32. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const match of query.toLowerCase().matchAll(TERM)) {
    terms.add(match[0]);
    if (terms.size === 32) {
      break;
    }
  }
  return [...terms];
}

/** True when the character at `index` of `text` is a letter or digit (false outside the text). */
export function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) {
    return false;
  }
  const code = text.charCodeAt(index);
  if (code < 0x80) {
    return (
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x61 && code <= 0x7a) ||
      (code >= 0x41 && code <= 0x5a)
    );
  }
  // A surrogate pair: test the whole code point.
  const point = text.codePointAt(code >= 0xdc00 && code <= 0xdfff ? index - 1 : index) ?? code;
  return WORD_CHAR.test(String.fromCodePoint(point));
}

/**
 * BM25 inverse document frequency: ln(1 + (N − df + 0.5) / (df + 0.5)), never negative.
 * @param documents N, the live memories considered.
 * @param frequency df, how many of them hold the term.
 */
export function inverseDocumentFrequency(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}

/**
 * One term's BM25 contribution: idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)).
 * @param tf occurrences of the term in the text; `length` dl and `averageLength` avgdl in characters.
 */
export function termScore(idf: number, tf: number, length: number, averageLength: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / (averageLength || 1));
  return (idf * tf * (BM25_K1 + 1)) / (tf + norm);
}
