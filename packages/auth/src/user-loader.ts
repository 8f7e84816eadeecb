/**
 * The per-request user load of docs/protocol.md §3 ("Resolving a bearer token", step 3) for many concurrent
 * requests: every load still reads the database (nothing is cached across loads), but the loads
 * requested during one turn of the event loop (the requests whose bytes arrived together) are
 * answered by ONE lookup, made when the loop reaches its check phase (setImmediate).
 * @module
 */
import type { User } from "@verifiable-memory/db-schema";
import DataLoader from "dataloader";

/** Most user ids one lookup asks for. */
export const MAX_USERS_PER_LOOKUP = 256;

/** Loads users by id; see {@link createUserLoader}. */
export interface UserLoader {
  /** The user with id `userId` as the database holds it now, or null when there is none. */
  load(userId: string): Promise<User | null>;
}

/**
 * A user loader over `lookup` (e.g. `(ids) => getUsersByIds(db, ids)`), built on `dataloader`
 * with its cache off: the loads of one event-loop turn become one `lookup` call of at most
 * MAX_USERS_PER_LOOKUP distinct ids; a later load calls `lookup` again.
 * @param lookup the users among `ids` (absent ones are answered null); its failure rejects every
 *   load of its turn.
 */
export function createUserLoader(
  lookup: (ids: readonly string[]) => Promise<readonly User[]>,
): UserLoader {
  return new DataLoader<string, User | null>(
    async (ids) => {
      const found = new Map((await lookup(ids)).map((user) => [user.id, user]));
      return ids.map((id) => found.get(id) ?? null);
    },
    { cache: false, maxBatchSize: MAX_USERS_PER_LOOKUP, batchScheduleFn: setImmediate },
  );
}
