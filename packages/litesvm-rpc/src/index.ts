/**
 * @verifiable-memory/litesvm-rpc: the embedded default chain (docs/protocol.md §7) as a library —
 * litesvm with the commitment program deployed through the real loader, behind the Solana
 * JSON-RPC subset the project uses and the PubSub WebSocket, with its state persisted in
 * `<dataDir>/chain`; and the JSON-RPC clients of its faucet and clock warp. The process that
 * `pnpm start` runs is apps/local-chain (its `main.ts`).
 * Source: docs/protocol.md §7, §10; packages/litesvm-rpc/README.md.
 * @module
 */

export { requestAirdrop } from "./faucet.js";
export { LedgerCorruptError } from "./ledger.js";
export {
  errorSummary,
  type LocalChain,
  type LocalChainOptions,
  startLocalChain,
} from "./server.js";
export { MAX_PROCESSING_AGE, SLOT_MS } from "./slot-clock.js";
export { type WarpResult, warpClock } from "./warp.js";
