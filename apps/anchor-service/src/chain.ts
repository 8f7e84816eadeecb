/**
 * The chain operations the anchor sweep uses: a structural subset of `@verifiable-memory/chain-commit`'s
 * ChainClient (docs/protocol.md §7.4 "The chain client"), so the sweep depends on nothing
 * else and the client's typed errors pass through unchanged; `commitMany` is needed only with
 * USER_ANCHOR_INTERVAL_MS > 0 (ChainUnavailableError, NonceRaceError,
 * CountDecreasedError, ConfirmationTimeoutError, UnauthorizedAuthorityError,
 * InsufficientFundsError, TransactionFailedError).
 * @module
 */
import type { ChainClient } from "@verifiable-memory/chain-commit";

/** The chain as the anchor service sees it: a ChainClient, or anything shaped like one. */
export type AnchorChain = Pick<
  ChainClient,
  "authorityAddress" | "readCommitment" | "commit" | "authorityBalance"
> &
  Partial<Pick<ChainClient, "commitMany">>;
