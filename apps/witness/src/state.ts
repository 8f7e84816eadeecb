/**
 * The witness's state: per origin, the latest checkpoint it cosigned (size and root), in one JSON
 * file replaced atomically (a temporary file written and fsynced, then renamed over the old one,
 * then the directory fsynced). Updates run one at a time (a promise chain), so checking `old` and
 * writing the new state are atomic within the process, as C2SP tlog-witness "add-checkpoint"
 * requires; one witness process per file. docs/protocol.md §13.6 "Witnesses".
 * @module
 */
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { decodeBase64, encodeBase64 } from "@verifiable-memory/signed-note";

/** The latest checkpoint cosigned for one origin. */
export interface LogState {
  readonly size: number;
  /** The 32-byte root hash at `size`. */
  readonly root: Uint8Array;
}

/** The file's shape: origin → { size, root base64 }. */
type StateFile = Record<string, { size: number; root: string }>;

/** The state of every origin, with serialised updates. */
export interface WitnessStore {
  /** The state of `origin`, or null when nothing was cosigned for it. */
  get(origin: string): LogState | null;
  /**
   * Runs `step` alone (no other update runs meanwhile) on the origin's current state; when it
   * returns a new state, that state is written to disk before the returned promise settles.
   * @returns what `step` returned.
   * @throws what `step` or the file system throws (the state is then unchanged).
   */
  update<T>(
    origin: string,
    step: (current: LogState | null) => { next: LogState | null; result: T },
  ): Promise<T>;
}

async function writeAtomically(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, "w", 0o600);
  try {
    await file.writeFile(content);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const directory = await open(dirname(path), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function parseState(text: string, path: string): Map<string, LogState> {
  const raw = JSON.parse(text) as StateFile;
  const states = new Map<string, LogState>();
  for (const [origin, entry] of Object.entries(raw)) {
    const root = decodeBase64(entry.root);
    if (!Number.isSafeInteger(entry.size) || entry.size < 0 || root?.length !== 32) {
      throw new Error(`${path}: malformed state for ${JSON.stringify(origin)}`);
    }
    states.set(origin, { size: entry.size, root });
  }
  return states;
}

/**
 * Opens the state file at `path` (created at the first update; its directory is created now).
 * @throws Error when the file exists but is not a state file (unreadable, not JSON, bad entries).
 */
export async function openWitnessStore(path: string): Promise<WitnessStore> {
  await mkdir(dirname(path), { recursive: true });
  let states: Map<string, LogState>;
  try {
    states = parseState(await readFile(path, "utf8"), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw error;
    }
    states = new Map();
  }
  let queue: Promise<unknown> = Promise.resolve();
  return {
    get: (origin) => states.get(origin) ?? null,
    update(origin, step) {
      const run = queue.then(async () => {
        const { next, result } = step(states.get(origin) ?? null);
        if (next) {
          const updated = new Map(states).set(origin, next);
          const file: StateFile = {};
          for (const [o, s] of updated) {
            file[o] = { size: s.size, root: encodeBase64(s.root) };
          }
          await writeAtomically(path, `${JSON.stringify(file, null, 2)}\n`);
          states = updated;
        }
        return result;
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
