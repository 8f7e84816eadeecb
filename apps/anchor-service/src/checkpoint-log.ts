/**
 * The checkpoint log's appender (docs/protocol.md §13.5 "The checkpoint log"): after each sweep the
 * leader appends the user checkpoints anchored since the last append, as entries (their unsigned
 * note texts, §13.3 "User checkpoints"), and signs the checkpoint log's new checkpoint with the log
 * key.
 * @module
 */
import type { LogKey } from "@verifiable-memory/app-config";
import {
  appendCheckpointLog,
  type CheckpointLogAppendResult,
  type Database,
} from "@verifiable-memory/db-schema";
import { formatCheckpoint, signNote, userLogOrigin } from "@verifiable-memory/signed-note";

/** Entries appended by one call at most; more wait for the next interval. */
export const MAX_ENTRIES_PER_APPEND = 50_000;

const encoder = new TextEncoder();

/**
 * Appends every anchored user checkpoint not yet in the checkpoint log and signs the log's new
 * checkpoint (origin LOG_ORIGIN, key name LOG_ORIGIN) in one database transaction.
 * @returns the new head and the number of entries, or null when nothing was waiting.
 * @throws the database's errors (nothing is written then).
 */
export function appendUserCheckpoints(
  db: Database,
  logKey: LogKey,
  maxEntries = MAX_ENTRIES_PER_APPEND,
): Promise<CheckpointLogAppendResult> {
  return appendCheckpointLog(db, {
    maxEntries,
    entryOf: (checkpoint) =>
      encoder.encode(
        formatCheckpoint({
          origin: userLogOrigin(logKey.origin, checkpoint.owner),
          size: checkpoint.treeSize,
          rootHash: checkpoint.root,
          extensions: [],
        }),
      ),
    sign: (size, root) =>
      signNote(formatCheckpoint({ origin: logKey.origin, size, rootHash: root, extensions: [] }), [
        logKey.signer,
      ]),
  });
}
