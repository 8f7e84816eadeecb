/**
 * The cold load's floor, shared by the 100 000 and the 1 000 000 cold figures (the latter in a
 * fresh process, bench/recall-cold-child.ts): kept to these imports so that the child loads little.
 * @module
 */
import { type Database, streamRecallSegments } from "@verifiable-memory/db-schema";
import { decryptSegment } from "@verifiable-memory/envelope-crypto";

/** The baseline name of the cold floor ({@link segmentsFetchAndDecrypt}). */
export const FLOOR_NAME = "binary COPY fetch + AES-GCM decrypt of the same sealed segments";

/**
 * The cold floor: the user's sealed segments fetched the way the cold load fetches them (one
 * binary COPY, streamRecallSegments) and opened with node:crypto, without decoding or keeping
 * anything: what a cold load from segments cannot go below.
 * @returns the plaintext bytes opened.
 * @throws what streamRecallSegments or decryptSegment throws (a wrong key: the AES-GCM failure).
 */
export async function segmentsFetchAndDecrypt(
  db: Database,
  userId: string,
  dataKey: Uint8Array,
): Promise<number> {
  let bytes = 0;
  await streamRecallSegments(db, userId, (segment) => {
    bytes += decryptSegment(
      dataKey,
      { iv: segment.iv, ciphertext: segment.ciphertext },
      { userId, firstLeaf: segment.firstLeaf, endLeaf: segment.endLeaf },
    ).length;
  });
  return bytes;
}
