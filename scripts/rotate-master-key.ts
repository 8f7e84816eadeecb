/**
 * `pnpm rotate-master-key`: re-wraps every user's data key under the current master key
 * (MASTER_ENCRYPTION_KEY), opening each with the key its wrap names (MASTER_ENCRYPTION_KEY or one
 * of MASTER_ENCRYPTION_KEYS_PREVIOUS). Memory bodies are never touched: the data keys stay the
 * same, only their 69-byte wraps change. Runs beside the service, in batches (one conditional
 * UPDATE each, `--batch-size`, default 500 users), resumable (a rerun continues) and idempotent
 * (nothing left: nothing written). A progress bar on a terminal, one line per batch otherwise.
 * The procedure around it: docs/operations.md "Rotating the master key".
 *
 * Reads the same settings as `pnpm start`: `ENV_FILE` (default `./.env`; the environment
 * overrides it; a relative DATA_DIR resolves against the file's folder). DATABASE_URL unset → the
 * embedded PostgreSQL in DATA_DIR: reused when the service runs, else started for the run and
 * stopped after it. Exits 0 when every data key is under the current key, 1 on a configuration
 * error, a missing master key (named by its id), a data key that does not open (named by its
 * user) or keys left under another id, 2 on bad flags.
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, parseEnv } from "node:util";
import {
  ConfigError,
  databaseUrl,
  masterKey,
  parseConfig,
  previousMasterKeys,
} from "@verifiable-memory/app-config";
import { createDatabase, migrateDatabase } from "@verifiable-memory/db-schema";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import {
  MissingMasterKeyError,
  type RotationProgress,
  rotateDataKeys,
} from "@verifiable-memory/memory";
import { resolveDatabaseUrl } from "@verifiable-memory/runtime";
import { Presets, SingleBar } from "cli-progress";
import { z } from "zod";

const USAGE = `pnpm rotate-master-key [options]: re-wraps every user's data key under MASTER_ENCRYPTION_KEY.

  --batch-size <n>   users per batch (one UPDATE, one transaction), 1–10000 (default 500)
  -h, --help         this text

Before: set MASTER_ENCRYPTION_KEY to the new key and MASTER_ENCRYPTION_KEYS_PREVIOUS to the old
one(s), and restart the service. After: remove MASTER_ENCRYPTION_KEYS_PREVIOUS and restart.
Settings come from ENV_FILE (default ./.env, the file pnpm start writes); the environment
overrides it.`;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

let args: { "batch-size": string; help?: boolean };
try {
  args = parseArgs({
    options: {
      "batch-size": { type: "string", default: "500" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const batchSize = Number(args["batch-size"]);
if (!/^\d+$/.test(args["batch-size"]) || batchSize < 1 || batchSize > 10_000) {
  console.error(`--batch-size must be a whole number in 1–10000, got ${args["batch-size"]}`);
  process.exit(2);
}

const envFile = resolve(root, process.env.ENV_FILE || ".env");
const settings: Record<string, string | undefined> = {
  ...(existsSync(envFile)
    ? (parseEnv(readFileSync(envFile, "utf8")) as Record<string, string>)
    : {}),
  ...process.env,
};
/** The variables this script reads, validated as core-api and extension-api validate them. */
const schema = z.object({
  DATABASE_URL: databaseUrl,
  DATA_DIR: z.string().default("./.data"),
  MASTER_ENCRYPTION_KEY: masterKey,
  MASTER_ENCRYPTION_KEYS_PREVIOUS: previousMasterKeys,
});
let config: z.output<typeof schema>;
try {
  config = parseConfig(schema, settings);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`${error.message}\n(settings: ${envFile} and the environment)`);
    process.exit(1);
  }
  throw error;
}
const keys = new MasterKeyring(
  config.MASTER_ENCRYPTION_KEY,
  config.MASTER_ENCRYPTION_KEYS_PREVIOUS,
);
const dataDir = resolve(dirname(envFile), config.DATA_DIR);
console.log(`current master key id: ${keys.current.id}`);
console.log(`previous master key ids: ${keys.ids.slice(1).join(", ") || "(none)"}`);

const resolved = await resolveDatabaseUrl({ databaseUrl: config.DATABASE_URL, dataDir });
if (resolved.embedded) {
  console.log(
    `embedded PostgreSQL in ${dataDir}/postgres (${resolved.embedded.startedHere ? "started for this run" : "the running service's"})`,
  );
}
let exitCode = 0;
const database = createDatabase({ url: resolved.url, max: 2 });
const progress = progressReporter(Boolean(process.stdout.isTTY));
try {
  await migrateDatabase(resolved.url);
  const result = await rotateDataKeys(database.db, keys, {
    batchSize,
    onProgress: progress.update,
  });
  progress.stop();
  if (result.rewrapped === 0 && result.skipped === 0 && result.remaining.length === 0) {
    console.log(`every data key is already wrapped under ${result.masterKeyId}: nothing to do`);
  } else {
    console.log(
      `re-wrapped ${result.rewrapped} data keys under ${result.masterKeyId}` +
        (result.skipped > 0 ? ` (${result.skipped} changed meanwhile by another writer)` : ""),
    );
  }
  if (result.remaining.length > 0) {
    const left = result.remaining.map((c) => `${c.masterKeyId ?? "version 1"}: ${c.users}`);
    console.error(
      `data keys still not under ${result.masterKeyId} (${left.join(", ")}): a process still ` +
        "wraps new data keys under an old MASTER_ENCRYPTION_KEY. Restart every core-api and " +
        "extension-api with the new key, then run pnpm rotate-master-key again.",
    );
    exitCode = 1;
  } else if (keys.ids.length > 1) {
    console.log(
      "done: remove MASTER_ENCRYPTION_KEYS_PREVIOUS from the settings and restart the service",
    );
  }
} catch (error) {
  progress.stop();
  if (error instanceof MissingMasterKeyError) {
    console.error(error.message);
  } else {
    // A data key that does not open, or the database: the batches before it stay committed.
    console.error(
      `rotation stopped: ${(error as Error).message}\n(the batches before it are committed; a rerun continues)`,
    );
  }
  exitCode = 1;
} finally {
  await database.close();
  await resolved.close();
}
process.exit(exitCode);

/**
 * Progress of the run: a cli-progress bar on a terminal, else one line at the start
 * (`12000 data keys to re-wrap`) and one per batch (`500/12000 data keys re-wrapped`).
 */
function progressReporter(tty: boolean): {
  update: (p: RotationProgress) => void;
  stop: () => void;
} {
  let bar: SingleBar | null = null;
  return {
    update: ({ done, total }) => {
      if (!tty) {
        if (total > 0) {
          console.log(
            done === 0 ? `${total} data keys to re-wrap` : `${done}/${total} data keys re-wrapped`,
          );
        }
        return;
      }
      if (bar === null) {
        if (total === 0) {
          return;
        }
        bar = new SingleBar(
          { format: "  data keys [{bar}] {value}/{total} {eta_formatted}", hideCursor: true },
          Presets.shades_classic,
        );
        bar.start(total, done);
        return;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop: () => {
      bar?.stop();
      bar = null;
    },
  };
}
