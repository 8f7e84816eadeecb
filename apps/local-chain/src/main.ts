/**
 * Entry point of the local chain process (`pnpm start` runs it when CHAIN_RPC_URL is unset):
 * validates the environment (exit 1 naming the bad variable), starts the chain, logs its URLs,
 * and on SIGINT/SIGTERM closes the servers and flushes the ledger before exiting 0.
 * Logs go to stdout (`service: "local-chain"`, level LOG_LEVEL): readable lines on a terminal, pino
 * JSON lines otherwise (@verifiable-memory/runtime's createLogger).
 * Source: docs/protocol.md §7, §10.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ConfigError } from "@verifiable-memory/app-config";
import { errorSummary, type LocalChain, startLocalChain } from "@verifiable-memory/local-chain";
import { createLogger } from "@verifiable-memory/runtime";
import { type Env, parseEnv } from "./env.js";

let env: Env;
try {
  env = parseEnv(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    createLogger({ service: "local-chain" }).fatal({ issues: error.issues }, error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ service: "local-chain", level: env.LOG_LEVEL });
const dataDir = resolve(env.DATA_DIR);
logger.info(
  { dataDir, programId: env.SERVICE_PROGRAM_ID },
  "local chain starting: deploying the program and loading the ledger",
);
/**
 * The anchor authority's public key from AUTHORITY_KEYPAIR_PATH (a JSON array of 64 bytes), or
 * undefined when the variable is unset or the file does not exist yet.
 * @throws Error when the file exists but is not a Solana CLI keypair.
 */
function anchorAuthorityOf(path: string | undefined): string | undefined {
  if (path === undefined || !existsSync(path)) {
    return undefined;
  }
  const bytes: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(bytes) || bytes.length !== 64) {
    throw new Error(`AUTHORITY_KEYPAIR_PATH ${path} is not a JSON array of 64 bytes`);
  }
  return Keypair.fromSecretKey(Uint8Array.from(bytes as number[])).publicKey.toBase58();
}

let chain: LocalChain;
try {
  const anchorAuthority = anchorAuthorityOf(env.AUTHORITY_KEYPAIR_PATH);
  if (anchorAuthority === undefined) {
    logger.warn(
      { path: env.AUTHORITY_KEYPAIR_PATH ?? null },
      "no anchoring keypair: the program's anchor configuration is left as it is",
    );
  }
  chain = await startLocalChain({
    port: env.LOCAL_CHAIN_PORT,
    host: env.LOCAL_CHAIN_HOST,
    dataDir,
    programId: env.SERVICE_PROGRAM_ID,
    stakeLockSeconds: env.STAKE_LOCK_SECONDS,
    ...(anchorAuthority === undefined ? {} : { anchorAuthority }),
    logger,
  });
} catch (error) {
  logger.fatal({ err: errorSummary(error) }, "local chain failed to start");
  process.exit(1);
}
// The message keeps "JSON-RPC <url> " (tools wait for it on stdout, e.g. bench/anchor.bench.ts).
logger.info(
  {
    url: chain.url,
    wsUrl: chain.wsUrl,
    programId: env.SERVICE_PROGRAM_ID,
    state: `${dataDir}/chain`,
    genesisHash: chain.genesisHash,
  },
  `local chain listening: JSON-RPC ${chain.url} PubSub ${chain.wsUrl}`,
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  logger.info({ signal }, "stopping");
  try {
    await chain.close();
  } catch (error) {
    logger.fatal({ err: errorSummary(error) }, "closing the chain failed");
    process.exit(1);
  }
  logger.info("ledger flushed; stopped");
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
