/**
 * Third-party verification of a memory (docs/protocol.md §6 "Proofs and verification";
 * docs/protocol.md §6.7 "Permissionless verification (`svc-verify`)"): recompute the leaf from its
 * data (and the content, when given), read the owner's commitment account from a chain RPC chosen
 * by the verifier, and check the RFC 9162 §2.1.3.2 inclusion proof against the ON-CHAIN root and
 * memory count. Nothing is taken from the memory API except the bundle itself, and, for a bundle
 * cut at an older anchored size than the chain's, an RFC 9162 §2.1.4 consistency proof that is
 * verified against the bundle's root and the ON-CHAIN root (never trusted; docs/protocol.md §6.3).
 * @module
 */
import {
  fromHex,
  ProofError,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import {
  ChainReadError,
  commitmentAddress,
  InvalidAccountError,
  type OnChainCommitment,
  type ReadAccountOptions,
  readCommitmentAccount,
} from "./account.js";
import { base64Bytes } from "./base64.js";
import { BundleFormatError, type ProofBundle, parseInput } from "./bundle.js";
import { consistencyFetcher, type FetchConsistency, proofOfAnswer } from "./consistency.js";
import { contentHashOf, leafHashOf } from "./leaf.js";

/**
 * Why a bundle did not verify:
 * - `malformed_bundle`: the input is not a proof bundle;
 * - `not_anchored`: the bundle has no anchored checkpoint yet;
 * - `leaf_mismatch`: the leaf data does not hash to the bundle's leaf hash, or names another
 *   memory;
 * - `content_mismatch`: SHA-256(salt ‖ content) differs from the leaf's contentHash;
 * - `account_mismatch`: the bundle's account is not the owner's PDA under the program id used
 *   (a wrong or foreign program id);
 * - `account_not_found`: no commitment account at the PDA;
 * - `invalid_account`: the account is not a commitment account of that program, or is another
 *   owner's;
 * - `authority_mismatch`: the account's authority is not the expected one (`authority` option);
 * - `stale_checkpoint`: the bundle's checkpoint is older than the on-chain tip and no
 *   `apiUrl` / `fetchConsistency` was given to bridge it (fetch a fresh bundle, or give one);
 * - `consistency_invalid`: the bundle's checkpoint is older than the on-chain tip and the
 *   consistency proof obtained does not show that the on-chain tree extends the bundle's (RFC
 *   9162 §2.1.4.2), or the answer carries no well-formed proof;
 * - `consistency_unavailable`: the bundle's checkpoint is older than the on-chain tip and no
 *   consistency proof could be obtained (API unreachable, non-2xx answer such as 404 or 429) —
 *   the result is unknown, not negative;
 * - `checkpoint_mismatch`: the bundle's checkpoint differs from the on-chain commitment at the
 *   same or a larger size (the API served a root the chain never held);
 * - `proof_invalid`: the inclusion proof does not lead to the on-chain root;
 * - `chain_unavailable`: the RPC could not be read — the result is unknown, not negative.
 */
export type VerifyReason =
  | "malformed_bundle"
  | "not_anchored"
  | "leaf_mismatch"
  | "content_mismatch"
  | "account_mismatch"
  | "account_not_found"
  | "invalid_account"
  | "authority_mismatch"
  | "stale_checkpoint"
  | "consistency_invalid"
  | "consistency_unavailable"
  | "checkpoint_mismatch"
  | "proof_invalid"
  | "chain_unavailable";

/**
 * The checks of {@link verifyBundle}, in the order it makes them (docs/verification.md):
 * `bundle` (the input's shape), `anchored`, `leaf` (leaf hash recomputed), `content` (content
 * hash, when content is given), `account` (the owner's PDA), `chain` (the account read from the
 * RPC: present, the program's, the owner's), `authority` (when pinned), `checkpoint` (the
 * bundle's checkpoint against the on-chain commitment), `inclusion` (the inclusion proof to the
 * root), `consistency` (an old bundle's bridge to the on-chain root).
 */
export type VerifyCheckName =
  | "bundle"
  | "anchored"
  | "leaf"
  | "content"
  | "account"
  | "chain"
  | "authority"
  | "checkpoint"
  | "inclusion"
  | "consistency";

/** One check {@link verifyBundle} made: passed or not, and what it compared, in one sentence. */
export interface VerifyCheck {
  readonly check: VerifyCheckName;
  readonly passed: boolean;
  readonly detail: string;
}

/** Options of {@link verifyBundle}. */
export interface VerifyOptions extends ReadAccountOptions {
  /** Solana JSON-RPC endpoint the verifier trusts (never the memory API). */
  readonly rpcUrl: string;
  /** Commitment program id, base58; default the bundle's `anchor.programId`. */
  readonly programId?: string;
  /** The memory's plaintext; default the input's own `content` when present. */
  readonly content?: string;
  /** Expected authority of the commitment account, base58 (see docs: first-initializer caveat). */
  readonly authority?: string;
  /**
   * The memory API's base URL. When the bundle's checkpoint is older than the on-chain tip, the
   * consistency proof between the two sizes is fetched from its public route
   * `GET /owners/{owner}/consistency` (no credential; `fetch` and `timeoutMs` apply) and verified
   * against the bundle's root and the on-chain root. Without it (or `fetchConsistency`) such a
   * bundle is `stale_checkpoint`.
   */
  readonly apiUrl?: string;
  /** Obtains the consistency proof instead of `apiUrl` (takes precedence over it). */
  readonly fetchConsistency?: FetchConsistency;
}

/**
 * How an old bundle was bridged to the on-chain root: the RFC 9162 §2.1.4 consistency proof from
 * the bundle's checkpoint size `from` (root = `checkpoint.rootHash`) to the on-chain
 * `memoryCount` `to` (root = `onChain.root`), as verified.
 */
export interface ConsistencyBridge {
  readonly from: number;
  readonly to: number;
  /** PROOF(from, D[to]), lowercase hex. */
  readonly proof: readonly string[];
}

/** Result of {@link verifyBundle}. */
export interface VerifyResult {
  readonly verified: boolean;
  /** Null exactly when verified. */
  readonly reason: VerifyReason | null;
  /** One human-readable sentence. */
  readonly message: string;
  /** What was read from the chain (null when the chain was not, or could not be, read). */
  readonly onChain: OnChainCommitment | null;
  /** True when the memory's content was checked against the leaf as well. */
  readonly contentChecked: boolean;
  /**
   * Set when verified through a consistency proof: the bundle's checkpoint was older than the
   * on-chain tip, and the on-chain tree was proven to extend it. Null otherwise.
   */
  readonly bridged: ConsistencyBridge | null;
  /**
   * Every check made, in order (for a display that shows each step): all passed when verified;
   * otherwise the last one failed, with the reason's message as its detail. A reason that is
   * not a check's verdict (`chain_unavailable`, `consistency_unavailable`) ends with that check
   * failed too: its result is unknown, as the reason says.
   */
  readonly checks: readonly VerifyCheck[];
}

/** The checks made so far by one {@link verifyBundle} run. */
class CheckLog {
  readonly checks: VerifyCheck[] = [];

  /** Records `check` as passed. */
  pass(check: VerifyCheckName, detail: string): void {
    this.checks.push({ check, passed: true, detail });
  }

  /** Records `check` as failed and returns the failed result. */
  fail(
    check: VerifyCheckName,
    reason: VerifyReason,
    message: string,
    onChain: OnChainCommitment | null = null,
    contentChecked = false,
  ): VerifyResult {
    this.checks.push({ check, passed: false, detail: message });
    return {
      verified: false,
      reason,
      message,
      onChain,
      contentChecked,
      bridged: null,
      checks: this.checks,
    };
  }
}

/** The consistency-proof source of `options`: `fetchConsistency`, else one over `apiUrl`. */
function fetcherOf(options: VerifyOptions): FetchConsistency | null {
  if (options.fetchConsistency !== undefined) {
    return options.fetchConsistency;
  }
  if (options.apiUrl === undefined) {
    return null;
  }
  return consistencyFetcher(options.apiUrl, {
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/**
 * Verifies a proof bundle (or a grant's memory object with a nested `proof`) against the chain.
 * Checks in order: bundle shape; anchored; leaf hash = SHA-256(0x00 ‖ RFC 8785(leafData)) and
 * leafData.memoryId = memoryId; content hash (when content is given); the owner's PDA under the
 * program id equals `anchor.account`; the account read from `rpcUrl` exists, is owned by the
 * program, is a commitment account of that owner, and (when given) has the expected authority;
 * the bundle's checkpoint equals the on-chain (memoryCount, root); the inclusion proof of
 * leafIndex in a tree of memoryCount leaves yields the on-chain root.
 *
 * An OLD bundle — checkpoint (M, rootM) with M < the on-chain memoryCount N — is bridged when
 * `apiUrl` or `fetchConsistency` is given (docs/protocol.md §6.3): the inclusion proof of
 * leafIndex must yield rootM in a tree of M leaves (RFC 9162 §2.1.3.2, else `proof_invalid`),
 * then PROOF(M, D[N]) is obtained for the bundle's owner and verified between (M, rootM) and
 * (N, the ON-CHAIN root) (RFC 9162 §2.1.4.2, else `consistency_invalid`; not obtainable:
 * `consistency_unavailable`). The answer's own roots are ignored. Verified that way, the result's
 * `bridged` is `{ from: M, to: N, proof }`. Without either option such a bundle is
 * `stale_checkpoint`. A bundle NEWER than the chain (M > N) is `checkpoint_mismatch`.
 * @returns `{ verified, reason, message, onChain, contentChecked, bridged, checks }`; never throws for a
 *   bad bundle, an unreachable chain or API (reasons `malformed_bundle`, `chain_unavailable`,
 *   `consistency_unavailable`).
 * @throws TypeError when `options.rpcUrl` is not a string, or `options.apiUrl` is not an
 *   absolute http(s) URL.
 * @example const r = await verifyBundle(JSON.parse(text), { rpcUrl: "https://api.devnet.solana.com" });
 * @example const old = await verifyBundle(saved, { rpcUrl, apiUrl: "https://memory.example.com" });
 */
export async function verifyBundle(input: unknown, options: VerifyOptions): Promise<VerifyResult> {
  if (typeof options.rpcUrl !== "string" || options.rpcUrl.length === 0) {
    throw new TypeError("options.rpcUrl must be a non-empty string");
  }
  const fetchConsistency = fetcherOf(options);
  const log = new CheckLog();
  let parsed: ReturnType<typeof parseInput>;
  try {
    parsed = parseInput(input);
  } catch (error) {
    if (error instanceof BundleFormatError) {
      return log.fail("bundle", "malformed_bundle", error.message);
    }
    throw error;
  }
  const { bundle } = parsed;
  const content = options.content ?? parsed.content;
  log.pass("bundle", `a proof bundle of memory ${bundle.memoryId}, leaf ${bundle.leafIndex}`);

  if (!bundle.anchored || !bundle.checkpoint || !bundle.inclusionProof || !bundle.anchor) {
    return log.fail(
      "anchored",
      "not_anchored",
      "the memory is not covered by an anchored checkpoint yet",
    );
  }
  log.pass(
    "anchored",
    `cut at the anchored checkpoint of size ${bundle.checkpoint.treeSize} (transaction ${bundle.anchor.signature})`,
  );
  const leafHash = leafHashOf(bundle.leafData);
  if (toHex(leafHash) !== bundle.leafHash || bundle.leafData.memoryId !== bundle.memoryId) {
    return log.fail(
      "leaf",
      "leaf_mismatch",
      "the leaf data does not hash to the bundle's leaf hash",
    );
  }
  log.pass("leaf", `SHA-256(0x00 ‖ RFC 8785(leafData)) = ${bundle.leafHash}`);
  const contentChecked = content !== null;
  if (content !== null) {
    const salt = base64Bytes(bundle.salt);
    if (contentHashOf(salt, content) !== bundle.leafData.contentHash) {
      return log.fail(
        "content",
        "content_mismatch",
        "SHA-256(salt ‖ content) differs from the leaf's contentHash",
      );
    }
    log.pass("content", `SHA-256(salt ‖ content) = ${bundle.leafData.contentHash}`);
  }

  const programId = options.programId ?? bundle.anchor.programId;
  let account: string;
  try {
    account = commitmentAddress(bundle.leafData.owner, programId);
  } catch {
    return log.fail(
      "account",
      "malformed_bundle",
      "the owner or the program id is not a base58 public key",
    );
  }
  if (account !== bundle.anchor.account) {
    return log.fail(
      "account",
      "account_mismatch",
      `the owner's commitment PDA under program ${programId} is ${account}, not ${bundle.anchor.account}`,
    );
  }
  log.pass("account", `the owner's commitment PDA under program ${programId} is ${account}`);

  let onChain: OnChainCommitment | null;
  try {
    onChain = await readCommitmentAccount(options.rpcUrl, account, programId, options);
  } catch (error) {
    if (error instanceof ChainReadError) {
      return log.fail("chain", "chain_unavailable", `could not read the chain: ${error.message}`);
    }
    if (error instanceof InvalidAccountError) {
      return log.fail("chain", "invalid_account", error.message);
    }
    throw error;
  }
  if (onChain === null) {
    return log.fail("chain", "account_not_found", `no commitment account at ${account}`);
  }
  if (onChain.owner !== bundle.leafData.owner) {
    return log.fail(
      "chain",
      "invalid_account",
      `the account commits ${onChain.owner}'s log`,
      onChain,
    );
  }
  log.pass(
    "chain",
    `read from the chain: size ${onChain.memoryCount}, root ${onChain.root}, nonce ${onChain.nonce}`,
  );
  if (options.authority !== undefined) {
    if (onChain.authority !== options.authority) {
      return log.fail(
        "authority",
        "authority_mismatch",
        `the account's authority is ${onChain.authority}, not ${options.authority}`,
        onChain,
      );
    }
    log.pass("authority", `the account's authority is ${onChain.authority}`);
  }

  const { treeSize, rootHash } = bundle.checkpoint;
  if (treeSize < onChain.memoryCount) {
    if (fetchConsistency === null) {
      return log.fail(
        "checkpoint",
        "stale_checkpoint",
        `the bundle's checkpoint (size ${treeSize}) is older than the on-chain tip (size ${onChain.memoryCount}); fetch a fresh proof, or give the API's URL to bridge it with a consistency proof`,
        onChain,
        contentChecked,
      );
    }
    log.pass(
      "checkpoint",
      `the bundle's checkpoint (size ${treeSize}) is older than the on-chain tip (size ${onChain.memoryCount}): bridged by a consistency proof`,
    );
    return bridge(log, bundle, leafHash, onChain, fetchConsistency, contentChecked);
  }
  if (treeSize !== onChain.memoryCount || rootHash !== onChain.root) {
    return log.fail(
      "checkpoint",
      "checkpoint_mismatch",
      `the bundle's checkpoint (size ${treeSize}, root ${rootHash}) is not the on-chain commitment (size ${onChain.memoryCount}, root ${onChain.root})`,
      onChain,
      contentChecked,
    );
  }
  log.pass("checkpoint", `the bundle's checkpoint is the on-chain commitment (size ${treeSize})`);

  try {
    verifyInclusion(
      bundle.leafIndex,
      onChain.memoryCount,
      leafHash,
      bundle.inclusionProof.map((node) => fromHex(node)),
      fromHex(onChain.root),
    );
  } catch (error) {
    if (error instanceof ProofError) {
      return log.fail(
        "inclusion",
        "proof_invalid",
        `the inclusion proof does not lead to the on-chain root (${error.reason})`,
        onChain,
        contentChecked,
      );
    }
    throw error;
  }
  log.pass(
    "inclusion",
    `the inclusion proof of leaf ${bundle.leafIndex} (${bundle.inclusionProof.length} nodes) leads to the on-chain root`,
  );
  return {
    verified: true,
    reason: null,
    message: `leaf ${bundle.leafIndex} is included in the tree of ${onChain.memoryCount} leaves committed at ${account} (nonce ${onChain.nonce})`,
    onChain,
    contentChecked,
    bridged: null,
    checks: log.checks,
  };
}

/**
 * The old-bundle path of {@link verifyBundle}: the bundle's checkpoint (M, rootM) is older than
 * the on-chain (N, rootN). Checks the inclusion proof against rootM at size M (RFC 9162
 * §2.1.3.2), then obtains PROOF(M, D[N]) for the bundle's owner and verifies it between
 * (M, rootM) and (N, rootN) (RFC 9162 §2.1.4.2). rootN is the one read from the chain; whatever
 * roots the answer reports are ignored.
 */
async function bridge(
  log: CheckLog,
  bundle: ProofBundle,
  leafHash: Uint8Array,
  onChain: OnChainCommitment,
  fetchConsistency: FetchConsistency,
  contentChecked: boolean,
): Promise<VerifyResult> {
  const checkpoint = bundle.checkpoint as NonNullable<ProofBundle["checkpoint"]>;
  const from = checkpoint.treeSize;
  const to = onChain.memoryCount;
  const oldRoot = fromHex(checkpoint.rootHash);
  try {
    verifyInclusion(
      bundle.leafIndex,
      from,
      leafHash,
      (bundle.inclusionProof ?? []).map((node) => fromHex(node)),
      oldRoot,
    );
  } catch (error) {
    if (error instanceof ProofError) {
      return log.fail(
        "inclusion",
        "proof_invalid",
        `the inclusion proof does not lead to the bundle's root at size ${from} (${error.reason})`,
        onChain,
        contentChecked,
      );
    }
    throw error;
  }
  log.pass(
    "inclusion",
    `the inclusion proof of leaf ${bundle.leafIndex} leads to the bundle's root at size ${from}`,
  );

  let answer: unknown;
  try {
    answer = await fetchConsistency({ owner: bundle.leafData.owner, from, to });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return log.fail(
      "consistency",
      "consistency_unavailable",
      `the bundle's checkpoint (size ${from}) is older than the on-chain tip (size ${to}) and no consistency proof could be obtained: ${detail}`,
      onChain,
      contentChecked,
    );
  }
  const proof = proofOfAnswer(answer);
  if (proof === null) {
    return log.fail(
      "consistency",
      "consistency_invalid",
      "the consistency answer carries no proof of 64-lowercase-hex nodes",
      onChain,
      contentChecked,
    );
  }
  try {
    verifyConsistency(
      from,
      to,
      proof.map((node) => fromHex(node)),
      oldRoot,
      fromHex(onChain.root),
    );
  } catch (error) {
    if (error instanceof ProofError) {
      return log.fail(
        "consistency",
        "consistency_invalid",
        `the consistency proof from size ${from} to ${to} does not link the bundle's root to the on-chain root (${error.reason})`,
        onChain,
        contentChecked,
      );
    }
    throw error;
  }
  log.pass(
    "consistency",
    `the consistency proof ${from} → ${to} (${proof.length} nodes) links the bundle's root to the on-chain root`,
  );
  return {
    verified: true,
    reason: null,
    message: `leaf ${bundle.leafIndex} is included in the tree of ${from} leaves of the bundle's checkpoint, which the tree of ${to} leaves committed at ${onChain.account} (nonce ${onChain.nonce}) extends (consistency proof ${from} → ${to})`,
    onChain,
    contentChecked,
    bridged: { from, to, proof },
    checks: log.checks,
  };
}
