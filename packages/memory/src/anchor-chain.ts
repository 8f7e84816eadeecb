/**
 * The chain as the core API sees it (docs/protocol.md §6, §7): where anchors live, a read of the
 * commitment account through `@verifiable-memory/chain-commit`'s standard JSON-RPC reader, and a
 * read of the checkpoint log account (docs/protocol.md §13.5) through the verifier's.
 * @module
 */
import {
  ChainUnavailableError,
  commitmentAddress,
  InvalidCommitmentAccountError,
  readCommitmentFromRpc,
} from "@verifiable-memory/chain-commit";
import { fromHex } from "@verifiable-memory/merkle-log";
import {
  ChainReadError,
  InvalidAccountError,
  readCheckpointLogAccount,
} from "@verifiable-memory/verifier";
import type { AnchorChain } from "./proofs.js";

// Memoized commitment addresses (a PDA search costs up to 255 hashes) before the memo is reset.
const ADDRESS_MEMO_LIMIT = 10_000;

/**
 * An {@link AnchorChain} over a Solana JSON-RPC endpoint.
 * @param rpcUrl CHAIN_RPC_URL (or the local chain's URL).
 * @param programId SERVICE_PROGRAM_ID, base58.
 * @param cluster the cluster name reported in anchors: SIWS_CHAIN_ID (`mainnet`, `devnet`,
 *   `testnet`, `localnet`), which the operator sets for the cluster CHAIN_RPC_URL serves.
 * @param requestTimeoutMs timeout of each RPC read; default 5 000 ms.
 * @throws TypeError when `rpcUrl` is not a URL.
 */
export function rpcAnchorChain(
  rpcUrl: string,
  programId: string,
  cluster: string,
  requestTimeoutMs = 5000,
): AnchorChain {
  const addresses = new Map<string, string>();
  return {
    cluster,
    programId,
    commitmentAccount(owner) {
      let address = addresses.get(owner);
      if (address === undefined) {
        if (addresses.size >= ADDRESS_MEMO_LIMIT) {
          addresses.clear();
        }
        address = commitmentAddress(owner, programId).toBase58();
        addresses.set(owner, address);
      }
      return address;
    },
    readCommitment: (owner) =>
      readCommitmentFromRpc(rpcUrl, programId, owner, { requestTimeoutMs }),
    async readCheckpointLog(account) {
      try {
        const read = await readCheckpointLogAccount(rpcUrl, account, programId, {
          timeoutMs: requestTimeoutMs,
        });
        return read === null
          ? null
          : { address: account, root: fromHex(read.root), size: read.size, nonce: read.nonce };
      } catch (error) {
        if (error instanceof ChainReadError) {
          throw new ChainUnavailableError("getAccountInfo", error);
        }
        if (error instanceof InvalidAccountError) {
          throw new InvalidCommitmentAccountError(error.message, account);
        }
        throw error;
      }
    },
  };
}
