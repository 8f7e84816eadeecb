/**
 * `pnpm reembed`: embeds every live memory that has no vector of the configured model id
 * (EMBEDDINGS, docs/protocol.md §4.5 "Recall"): after a model change (another provider, endpoint,
 * model or dimensions is another model id), or for memories the running service could not embed.
 * Each is opened under its user's data key, embedded, and its vector stored sealed; the service's
 * own background pass (EMBEDDINGS_PASS_INTERVAL_MS) does the same, this runs it to the end now.
 * `--prune` then deletes the vectors of every other model id (once every running core-api uses
 * the new model). Runs beside the service; resumable (a rerun continues) and idempotent.
 *
 * Reads the same settings as `pnpm start`: `ENV_FILE` (default `./.env`; the environment
 * overrides it). DATABASE_URL unset → the embedded PostgreSQL in DATA_DIR. Exits 0 when done, 1
 * on a configuration error, EMBEDDINGS=none or a model or data key failure, 2 on bad flags.
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
import {
  createDatabase,
  deleteVectorsOfOtherModels,
  migrateDatabase,
} from "@verifiable-memory/db-schema";
import {
  checkEmbeddingsEnv,
  createEmbeddingProvider,
  embeddingSettings,
  embeddingsFields,
} from "@verifiable-memory/embeddings";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { VectorIndexer } from "@verifiable-memory/memory";
import { resolveDatabaseUrl } from "@verifiable-memory/runtime";
import { z } from "zod";

const USAGE = `pnpm reembed [options]: embeds every memory without a vector of the configured model.

  --prune      then delete the vectors of every other model id
  -h, --help   this text

Settings come from ENV_FILE (default ./.env, the file pnpm start writes); the environment
overrides it. EMBEDDINGS must be openai or local (docs/recall.md).`;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

let args: { prune?: boolean; help?: boolean };
try {
  args = parseArgs({
    options: { prune: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const envFile = resolve(root, process.env.ENV_FILE || ".env");
const settings: Record<string, string | undefined> = {
  ...(existsSync(envFile)
    ? (parseEnv(readFileSync(envFile, "utf8")) as Record<string, string>)
    : {}),
  ...process.env,
};
const schema = z
  .object({
    DATABASE_URL: databaseUrl,
    DATA_DIR: z.string().default("./.data"),
    MASTER_ENCRYPTION_KEY: masterKey,
    MASTER_ENCRYPTION_KEYS_PREVIOUS: previousMasterKeys,
    ...embeddingsFields,
  })
  .superRefine(checkEmbeddingsEnv);
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
const embeddings = embeddingSettings(config);
if (embeddings === null) {
  console.error("EMBEDDINGS is none: there is no model to embed with (docs/recall.md)");
  process.exit(1);
}
const keys = new MasterKeyring(
  config.MASTER_ENCRYPTION_KEY,
  config.MASTER_ENCRYPTION_KEYS_PREVIOUS,
);
const dataDir = resolve(dirname(envFile), config.DATA_DIR);
const resolved = await resolveDatabaseUrl({ databaseUrl: config.DATABASE_URL, dataDir });
const database = createDatabase({ url: resolved.url, max: 2 });
const provider = createEmbeddingProvider(embeddings);
const indexer = new VectorIndexer({
  db: database.db,
  provider,
  masterKeys: keys,
  namespaces: embeddings.namespaces,
  batchSize: embeddings.batchSize,
});
let exitCode = 0;
try {
  await migrateDatabase(resolved.url);
  const modelId = await indexer.modelId();
  console.log(`model id: ${modelId}`);
  const stored = await indexer.runPass((count) => {
    if (count % 1000 < embeddings.batchSize) {
      console.log(`${count} vectors stored`);
    }
  });
  console.log(`done: ${stored} memories embedded`);
  if (args.prune) {
    console.log(
      `pruned ${await deleteVectorsOfOtherModels(database.db, modelId)} vectors of other models`,
    );
  }
} catch (error) {
  console.error(`re-embedding stopped: ${(error as Error).message}\n(a rerun continues)`);
  exitCode = 1;
} finally {
  indexer.close();
  await provider.close();
  await database.close();
  await resolved.close();
}
process.exit(exitCode);
