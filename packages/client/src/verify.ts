/**
 * `@verifiable-memory/client/verify`: checking a memory against the chain without trusting the API.
 *
 * A separate entry point, so that importing `@verifiable-memory/client` alone keeps a bundle free of
 * `@verifiable-memory/verifier` (the same checks as the `svc-verify` command) and its hashing and
 * chain code. It runs in Node.js (agents, servers, scripts, auditors) and, through the verifier's
 * `"browser"` export condition, in browsers.
 *
 * Old bundles keep verifying: when a bundle was cut at an anchored size the chain has since moved
 * past, the RFC 9162 consistency proof between the two sizes is fetched from the API's public
 * route `GET /owners/{owner}/consistency` (no credential) and checked against the bundle's root
 * and the on-chain root (docs/protocol.md §6.3). `verify` uses the client's `baseUrl` for it;
 * `verifyProof` uses the `apiUrl` you give.
 * @module
 */
import {
  type ConsistencyBridge,
  type FetchConsistency,
  type FetchLogConsistency,
  type OnChainCheckpointLog,
  type OnChainCommitment,
  type ReadAccountOptions,
  type VerifyPath,
  type VerifyReason,
  verifyBundle,
} from "@verifiable-memory/verifier";
import type { SvcClient } from "./client.js";
import type { ProofBundle } from "./types.js";

export type {
  ConsistencyBridge,
  FetchConsistency,
  FetchLogConsistency,
  OnChainCheckpointLog,
  OnChainCommitment,
  VerifyPath,
  VerifyReason,
};

/**
 * Which chain to read, and what to pin. Give `rpcUrl` or `connection`: the Solana JSON-RPC
 * endpoint *you* trust (never the memory API).
 */
export interface ChainVerifyOptions extends ReadAccountOptions {
  /** A Solana JSON-RPC URL, e.g. `https://api.devnet.solana.com`. */
  readonly rpcUrl?: string;
  /** A web3.js `Connection` (or anything with its `rpcEndpoint`): its endpoint is read. */
  readonly connection?: { readonly rpcEndpoint: string };
  /** The commitment program id to derive the account under; default the bundle's own. Pin it. */
  readonly programId?: string;
  /** The commitment account's expected authority (the service's anchoring key, `GET /info`). Pin it. */
  readonly authority?: string;
  /**
   * The memory API's base URL, to bridge a bundle older than the on-chain tip with the public
   * consistency proof `GET /owners/{owner}/consistency` (verified against the bundle's root and
   * the on-chain root, never trusted). Without it (or `fetchConsistency`) such a bundle is
   * `stale_checkpoint`. `verify` defaults it to the client's `baseUrl`.
   */
  readonly apiUrl?: string;
  /** Obtains that consistency proof another way (takes precedence over `apiUrl`). */
  readonly fetchConsistency?: FetchConsistency;
  /**
   * The log verifier keys you trust (`<LOG_ORIGIN>+<key id>+<base64 key>`, docs/protocol.md
   * §13.1), for a memory only the checkpoint log covers yet: its signed user checkpoint must be
   * signed by one of them. Pin them; without them the `logKeys` of `GET {apiUrl}/info` are used.
   */
  readonly logKeys?: readonly string[];
  /** Obtains the checkpoint log's consistency proof another way (takes precedence over `apiUrl`). */
  readonly fetchLogConsistency?: FetchLogConsistency;
}

/** Options of {@link verify}. */
export interface VerifyOptions extends ChainVerifyOptions {
  /**
   * Also fetch the memory (`GET /memories/:id`) and check its content against the leaf's
   * `contentHash`; default true. False checks only that the leaf is on chain.
   */
  readonly checkContent?: boolean;
}

/** The outcome of a check against the chain. */
export interface VerifyOutcome {
  /** True only when every check passed against the on-chain commitment. */
  readonly ok: boolean;
  /**
   * Why not, when `ok` is false (absent when ok): `not_anchored`, `leaf_mismatch`,
   * `content_mismatch`, `account_mismatch`, `account_not_found`, `invalid_account`,
   * `authority_mismatch`, `stale_checkpoint` (an old bundle and no `apiUrl` to bridge it),
   * on the checkpoint-log path `note_malformed`, `note_signature_invalid`, `entry_mismatch`,
   * `log_inclusion_invalid`, `log_account_not_found`, `log_checkpoint_mismatch`,
   * `consistency_invalid` (the consistency proof does not link the bundle's root to the on-chain
   * root), `checkpoint_mismatch`, `proof_invalid`, `malformed_bundle`, or `chain_unavailable` /
   * `consistency_unavailable` — the chain, or the consistency proof, could not be read, so the
   * answer is *unknown*, not negative.
   */
  readonly reason?: VerifyReason;
  /** One human-readable sentence. */
  readonly message: string;
  /**
   * Which anchoring the check stood on: the owner's commitment account (`account`) or the
   * checkpoint log (`checkpoint_log`, docs/protocol.md §13.5); null when none was reached.
   */
  readonly path: VerifyPath | null;
  /** The commitment account as read from the chain (null when not read). */
  readonly onChain: OnChainCommitment | null;
  /** The checkpoint log account as read from the chain (checkpoint-log path; else null). */
  readonly checkpointLog: OnChainCheckpointLog | null;
  /** The log verifier key that verified the signed user checkpoint (checkpoint-log path). */
  readonly logKey: string | null;
  /** Whether the memory's content was checked against the leaf too. */
  readonly contentChecked: boolean;
  /**
   * Set when an old bundle was verified through a consistency proof from its checkpoint size
   * (`from`) to the on-chain `memoryCount` (`to`); null otherwise.
   */
  readonly bridged: ConsistencyBridge | null;
}

/** The RPC endpoint of `rpcUrl` or `connection`. @throws TypeError when neither is given. */
function rpcUrlOf(options: ChainVerifyOptions): string {
  const url = options.rpcUrl ?? options.connection?.rpcEndpoint;
  if (typeof url !== "string" || url === "") {
    throw new TypeError("give rpcUrl or connection: the chain RPC to verify against");
  }
  return url;
}

/**
 * Checks a proof bundle (from `prove`, or a memory of a grant answer with its nested `proof`)
 * against the commitment account read from the chain — the checks of `svc-verify`
 * (docs/protocol.md §6.7): leaf hash, content hash (when `content` is given, or the input carries
 * it), the owner's PDA, the account's owner/authority, the checkpoint against the on-chain root
 * and count, and the inclusion proof. A memory only the checkpoint log covers yet is checked
 * through it: the user checkpoint signed by a trusted log key (`logKeys`), its entry in the
 * checkpoint log, and that log's root in the checkpoint log account read from the chain
 * (docs/protocol.md §13.5 "The checkpoint log"). A bundle saved long ago (its checkpoint older than the
 * on-chain tip) verifies when `apiUrl` is given: the consistency proof from its size to the
 * on-chain size (RFC 9162 §2.1.4.2) is fetched from the API's public route, without credentials,
 * and checked against the bundle's root and the ON-CHAIN root.
 * @param content the memory's text, to check against the leaf.
 * @returns `{ ok, reason?, message, onChain, contentChecked, bridged }`; never throws for a bad
 *   bundle or an unreachable chain or API (`malformed_bundle`, `chain_unavailable`,
 *   `consistency_unavailable`).
 * @throws TypeError when neither `rpcUrl` nor `connection` is given, or `apiUrl` is not an
 *   absolute http(s) URL.
 * @example await verifyProof(savedBundle, { rpcUrl, apiUrl: "https://memory.example.com" });
 */
export async function verifyProof(
  bundle: ProofBundle | unknown,
  options: ChainVerifyOptions & { readonly content?: string },
): Promise<VerifyOutcome> {
  const { rpcUrl: _rpcUrl, connection: _connection, ...rest } = options;
  const result = await verifyBundle(bundle, { ...rest, rpcUrl: rpcUrlOf(options) });
  return {
    ok: result.verified,
    ...(result.reason === null ? {} : { reason: result.reason }),
    message: result.message,
    path: result.path,
    onChain: result.onChain,
    checkpointLog: result.checkpointLog,
    logKey: result.logKey,
    contentChecked: result.contentChecked,
    bridged: result.bridged,
  };
}

/**
 * Verifies memory `id` without trusting the API: fetches its proof bundle (and, by default, the
 * memory to check its content) through `client`, then checks them against the commitment
 * account read from the chain RPC you name (see {@link verifyProof}). `apiUrl` defaults to the
 * client's `baseUrl`, so a bundle the chain has moved past is bridged by the public consistency
 * proof (fetched without the client's credential).
 * @example const { ok, reason } = await verify(client, id, { rpcUrl: "https://api.devnet.solana.com", authority });
 * @returns `{ ok: true, … }`, or `{ ok: false, reason, … }` — including `not_anchored` for a
 *   memory the service has not anchored yet.
 * @throws SvcError when the API does not hand out the bundle or the memory (`not_found`,
 *   `unauthorized`, …).
 * @throws TypeError when neither `rpcUrl` nor `connection` is given.
 */
export async function verify(
  client: SvcClient,
  id: string,
  options: VerifyOptions,
): Promise<VerifyOutcome> {
  rpcUrlOf(options);
  const { checkContent = true, ...rest } = options;
  const chain = { ...rest, apiUrl: options.apiUrl ?? client.baseUrl };
  const [bundle, memory] = await Promise.all([
    client.prove(id),
    checkContent ? client.get(id) : Promise.resolve(null),
  ]);
  return verifyProof(bundle, memory === null ? chain : { ...chain, content: memory.content });
}

/** A client with {@link verify} as a method. */
export type VerifyingClient<C extends SvcClient = SvcClient> = C & {
  /**
   * {@link verify} with this client: checks memory `id` against the chain, trusting the API for
   * nothing. @returns `{ ok, reason?, message, onChain, contentChecked, bridged }`. @throws SvcError,
   * TypeError as {@link verify}.
   */
  verify(id: string, options: VerifyOptions): Promise<VerifyOutcome>;
};

/**
 * Adds `verify(id, options)` to a client (the same object, extended).
 * @example const client = withVerify(createClient({ baseUrl, apiKey }));
 * await client.verify(id, { rpcUrl });
 */
export function withVerify<C extends SvcClient>(client: C): VerifyingClient<C> {
  return Object.assign(client, {
    verify: (id: string, options: VerifyOptions) => verify(client, id, options),
  });
}
