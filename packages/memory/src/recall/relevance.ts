/**
 * Relevance ranking of recall (`rank: "relevance"`, docs/protocol.md §4): Okapi BM25 over the
 * decrypted texts held in the recall cache, through an inverted index the cache builds in process
 * memory (never persisted, so no plaintext reaches the disk). Terms are the maximal runs of
 * letters and digits of the lower-cased text (and of the lower-cased query): a term occurs in a
 * text where it appears with no letter or digit right before or after it.
 * Document length is counted in characters (so `avgdl` too), a standard BM25 variant.
 * Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009), eq. 3.
 * @module
 */

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation. */
export const BM25_B = 0.75;

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
