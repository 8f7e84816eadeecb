/**
 * Relevance ranking of recall (`rank: "relevance"`, docs/protocol.md §4.5 "Recall"): Okapi BM25
 * over the decrypted texts held in the recall cache, through an inverted index the cache builds in
 * process memory (never persisted in clear). The terms come from the lexical analyser
 * (lexical-analyser.ts); a document's length is its number of terms (stop words left out, repeats
 * counted), so `avgdl` is the mean of that over the live memories.
 * Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009), eq. 3.
 * @module
 */

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation. */
export const BM25_B = 0.75;

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
 * @param tf occurrences of the term in the text; `length` dl and `averageLength` avgdl in terms.
 */
export function termScore(idf: number, tf: number, length: number, averageLength: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / (averageLength || 1));
  return (idf * tf * (BM25_K1 + 1)) / (tf + norm);
}
