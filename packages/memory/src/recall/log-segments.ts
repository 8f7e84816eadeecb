/**
 * From a user's cached log to a recall segment (docs/data-model.md "Recall segments"): the
 * entries and contents of one leaf range, which the cache seals in the background.
 * @module
 */
import type { SegmentEntry } from "../segment-format.js";
import type { LeafRange } from "../segments.js";
import type { UserLog } from "./user-log.js";

/**
 * The live memories of `range` in `log` whose ids are in `liveIds`, in leaf order, as segment
 * entries with their contents.
 * @throws Error when a live id of the range is not held (the log does not cover the range).
 */
export function segmentEntries(
  log: UserLog,
  range: LeafRange,
  liveIds: ReadonlySet<string>,
): { entries: SegmentEntry[]; contents: string[] } {
  const entries: SegmentEntry[] = [];
  const contents: string[] = [];
  for (let position = log.positionOfLeaf(range.firstLeaf); position < log.count; position++) {
    const leafIndex = log.leafIndexes[position] as number;
    if (leafIndex >= range.endLeaf) {
      break;
    }
    if (!log.isLive(position)) {
      continue;
    }
    const id = log.idAt(position);
    if (!liveIds.has(id)) {
      continue;
    }
    const writer = log.writerAt(position);
    entries.push({
      id,
      leafIndex,
      createdAtMs: log.createdMs[position] as number,
      metadataJson: log.metadataJson(position),
      leafHash: log.leafHashAt(position),
      namespace: log.namespaceAt(position),
      supersedes: log.supersedesAt(position),
      writerKind: writer?.kind ?? null,
      writerKeyId: writer?.kind === "api_key" ? writer.keyId : null,
    });
    contents.push(log.content(position));
  }
  if (entries.length !== liveIds.size) {
    throw new Error(
      `the cached log holds ${entries.length} of the ${liveIds.size} live memories of leaves [${range.firstLeaf}, ${range.endLeaf})`,
    );
  }
  return { entries, contents };
}
