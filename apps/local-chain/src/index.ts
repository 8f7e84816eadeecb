/**
 * @svc/local-chain: the embedded default chain (CONTRACT §6) — litesvm with the commitment
 * program deployed through the real loader, behind the Solana JSON-RPC subset the project uses
 * and the PubSub WebSocket, with its state persisted in DATA_DIR/chain.
 * Source: CONTRACT.md §6, §9; apps/local-chain/README.md.
 * @module
 */

export { MAX_PROCESSING_AGE, SLOT_MS } from "./chain.js";
export { type Env, EnvSchema, InvalidEnvError, parseEnv } from "./env.js";
export { requestAirdrop } from "./faucet.js";
export { LedgerCorruptError } from "./ledger.js";
export { type LocalChain, type LocalChainOptions, startLocalChain } from "./server.js";
