/**
 * Start-up re-encryption of `search` grant queries written in clear before queries were sealed
 * (docs/protocol.md §8.1 "Creation"). A SQL migration has no master key, so core-api does it before
 * serving: each clear query is sealed under its owner's data key and removed from the stored
 * operation by one conditional UPDATE, so the task is idempotent and two processes starting at once
 * seal each row once.
 * @module
 */
import {
  type Database,
  listClearGrantQueries,
  sealClearGrantQuery,
} from "@verifiable-memory/db-schema";
import { encryptGrantQuery } from "@verifiable-memory/envelope-crypto";
import type { DataKeys } from "@verifiable-memory/memory";

/** Grants read per round trip. */
const BATCH = 100;

/**
 * Seals every grant query still stored in clear.
 * @param dataKeys the users' data keys under the configured master keys.
 * @returns the number of rows this call sealed (0 on a second run, or when another process
 *   sealed them first).
 * @throws DecryptionError when an owner's data key does not unwrap under the configured master
 *   keys (core-api's master-key check runs first and refuses to start in that case).
 */
export async function sealClearGrantQueries(db: Database, dataKeys: DataKeys): Promise<number> {
  let sealed = 0;
  let after: string | null = null;
  for (;;) {
    const rows = await listClearGrantQueries(db, BATCH, after);
    for (const row of rows) {
      const query = encryptGrantQuery(dataKeys.of(row), row.query, {
        userId: row.userId,
        grantId: row.id,
      });
      if (await sealClearGrantQuery(db, row, query)) {
        sealed++;
      }
    }
    if (rows.length < BATCH) {
      return sealed;
    }
    after = rows[rows.length - 1]?.id ?? null;
  }
}
