/**
 * Entry point of the local chain process (`pnpm start` runs it when CHAIN_RPC_URL is unset):
 * validates the environment (exit 1 naming the bad variable), starts the chain, logs its URLs,
 * and on SIGINT/SIGTERM closes the servers and flushes the ledger before exiting 0.
 * Source: CONTRACT.md §6, §9.
 * @module
 */

import { resolve } from "node:path";
import { InvalidEnvError, parseEnv } from "./env.js";
import { startLocalChain } from "./server.js";

let env: ReturnType<typeof parseEnv>;
try {
  env = parseEnv(process.env);
} catch (error) {
  if (error instanceof InvalidEnvError) {
    console.error(`[local-chain] ${error.message}`);
    process.exit(1);
  }
  throw error;
}

const dataDir = resolve(env.DATA_DIR);
const chain = await startLocalChain({
  port: env.LOCAL_CHAIN_PORT,
  host: env.LOCAL_CHAIN_HOST,
  dataDir,
  programId: env.SERVICE_PROGRAM_ID,
});
console.log(
  `[local-chain] JSON-RPC ${chain.url}  PubSub ${chain.wsUrl}  program ${env.SERVICE_PROGRAM_ID}  state ${dataDir}/chain`,
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  console.log(`[local-chain] ${signal}: stopping`);
  await chain.close();
  console.log("[local-chain] ledger flushed; stopped");
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
