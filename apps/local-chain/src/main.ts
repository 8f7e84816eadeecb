/**
 * Entry point of the local chain process (`pnpm start` runs it when CHAIN_RPC_URL is unset):
 * validates the environment (exit 1 naming every bad variable, @verifiable-memory/runtime's
 * configErrorExit), starts the chain, logs its URLs, and on SIGINT/SIGTERM/SIGHUP closes the
 * servers and flushes the ledger before exiting 0 (runService: the signal handling is in place
 * before the chain starts, so a signal during start-up stops it once it has started).
 * Logs go to stdout (`service: "local-chain"`, level LOG_LEVEL): readable lines on a terminal, pino
 * JSON lines otherwise (@verifiable-memory/runtime's createLogger).
 * Source: docs/protocol.md §7, §10.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Keypair } from "@solana/web3.js";
import { startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { createLogger, loadServiceConfig, runService } from "@verifiable-memory/runtime";
import { parseEnv } from "./env.js";

const env = loadServiceConfig("local-chain", () => parseEnv(process.env));
const logger = createLogger({ service: "local-chain", level: env.LOG_LEVEL });
const dataDir = resolve(env.DATA_DIR);

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

await runService({
  name: "local-chain",
  logger,
  start: async (service) => {
    logger.info(
      { dataDir, programId: env.SERVICE_PROGRAM_ID },
      "local chain starting: deploying the program and loading the ledger",
    );
    const anchorAuthority = anchorAuthorityOf(env.AUTHORITY_KEYPAIR_PATH);
    if (anchorAuthority === undefined) {
      logger.warn(
        { path: env.AUTHORITY_KEYPAIR_PATH ?? null },
        "no anchoring keypair: the program's anchor configuration is left as it is",
      );
    }
    const chain = await startLocalChain({
      port: env.LOCAL_CHAIN_PORT,
      host: env.LOCAL_CHAIN_HOST,
      dataDir,
      programId: env.SERVICE_PROGRAM_ID,
      stakeLockSeconds: env.STAKE_LOCK_SECONDS,
      ...(anchorAuthority === undefined ? {} : { anchorAuthority }),
      logger,
    });
    service.onShutdown("chain", async () => {
      await chain.close();
      logger.info("ledger flushed");
    });
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
  },
});
