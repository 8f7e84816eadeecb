/**
 * @verifiable-memory/local-chain: the embedded default chain (docs/protocol.md §7) — litesvm with the commitment
 * program deployed through the real loader, behind the Solana JSON-RPC subset the project uses
 * and the PubSub WebSocket, with its state persisted in DATA_DIR/chain.
 * Source: docs/protocol.md §7, §10; apps/local-chain/README.md.
 * @module
 */

export { MAX_PROCESSING_AGE, SLOT_MS } from "./chain.js";
export { type Env, EnvSchema, parseEnv } from "./env.js";
export { requestAirdrop } from "./faucet.js";
export { LedgerCorruptError } from "./ledger.js";
export { type LocalChain, type LocalChainOptions, startLocalChain } from "./server.js";
export { type WarpResult, warpClock } from "./warp.js";
