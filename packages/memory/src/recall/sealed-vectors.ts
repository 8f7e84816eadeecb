/**
 * A user's vectors and their recall vector segments (docs/data-model.md "Recall segments",
 * docs/protocol.md §4.5 "Recall"): a cold load reads the vector segments of the query's model
 * first (one COPY), then only the stored vectors above them; full ranges whose content is sealed
 * get their vectors sealed in the background, one model per segment. A model change never mixes:
 * segments are read and sealed for the query's model id only (its AAD binds it too).
 * @module
 */
import {
  type Database,
  type RangeVector,
  sealRecallVectorSegment,
  streamRecallVectorSegments,
} from "@verifiable-memory/db-schema";
import { decryptVector } from "@verifiable-memory/envelope-crypto";
import { openVectorSegment, type SegmentVector, sealVectorSegment } from "../vector-segments.js";
import type { UserLog } from "./user-log.js";
import type { VectorStore } from "./vector-store.js";

/**
 * Adds the vectors of the user's vector segments of `store.modelId`, from leaf 0 while they
 * follow one another, to `store` at their memories' positions in `log` (live memories held
 * only; a vector of other dimensions is skipped, as a stored one would be).
 * @returns the end leaf of those segments (0 when none): vectors below it need no row reads.
 * @throws DecryptionError when a segment does not open; RangeError for a format not read here;
 *   database errors.
 */
export async function loadVectorSegments(
  db: Database,
  userId: string,
  dataKey: Uint8Array,
  log: UserLog,
  store: VectorStore,
): Promise<number> {
  let end = 0;
  let contiguous = true;
  await streamRecallVectorSegments(db, userId, store.modelId, (segment) => {
    if (!contiguous || segment.firstLeaf !== end) {
      contiguous = false;
      return;
    }
    for (const vector of openVectorSegment(dataKey, segment)) {
      const position = log.positionOfLeaf(vector.leafIndex);
      if (
        !log.isLive(position) ||
        log.leafIndexes[position] !== vector.leafIndex ||
        log.idAt(position) !== vector.memoryId ||
        vector.values.length !== store.dimensions
      ) {
        continue;
      }
      log.bytes += store.add(position, vector.values);
      log.changes++;
    }
    end = segment.endLeaf;
  });
  store.sealedEnd = end;
  return end;
}

/**
 * Seals the vectors of `store.modelId` for each full range from `store.sealedEnd` up to
 * `log.sealedEnd` (ranges whose content is sealed), in order, each in its own transaction
 * (`sealRecallVectorSegment`: the range's live memories locked, their stored vectors read and
 * opened under the data key, sealed as one segment).
 * @returns how many segments this call inserted.
 * @throws database errors; DecryptionError when a stored vector does not open.
 */
export async function sealVectorRanges(
  db: Database,
  userId: string,
  dataKey: Uint8Array,
  log: UserLog,
  store: VectorStore,
  segmentLeaves: number,
): Promise<number> {
  let inserted = 0;
  const { modelId } = store;
  while (segmentLeaves > 0 && store.sealedEnd + segmentLeaves <= log.sealedEnd) {
    const range = { firstLeaf: store.sealedEnd, endLeaf: store.sealedEnd + segmentLeaves };
    const done = await sealRecallVectorSegment(db, userId, modelId, range, (rows) =>
      sealVectorSegment(
        dataKey,
        userId,
        modelId,
        range,
        opened(dataKey, userId, modelId, store, rows),
      ),
    );
    if (done) {
      inserted++;
    }
    store.sealedEnd = Math.max(store.sealedEnd, range.endLeaf);
  }
  return inserted;
}

/** The stored vectors opened, those of the store's dimensions kept. */
function opened(
  dataKey: Uint8Array,
  userId: string,
  modelId: string,
  store: VectorStore,
  rows: readonly RangeVector[],
): SegmentVector[] {
  const vectors: SegmentVector[] = [];
  for (const row of rows) {
    const values = decryptVector(dataKey, row, { userId, memoryId: row.memoryId, modelId });
    if (values.length === store.dimensions) {
      vectors.push({ memoryId: row.memoryId, leafIndex: row.leafIndex, values });
    }
  }
  return vectors;
}
