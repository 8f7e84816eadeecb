/**
 * Third-party verification of a memory (docs/protocol.md §6 "Proofs and verification";
 * docs/protocol.md §6.7 "Permissionless verification (`svc-verify`)"): recompute the leaf from its
 * data (and the content, when given), then check it through whichever anchoring covers it:
 * - the **account path**: read the owner's commitment account from a chain RPC chosen by the
 *   verifier and check the RFC 9162 §2.1.3.2 inclusion proof against the ON-CHAIN root and
 *   memory count (an older bundle bridged by a verified RFC 9162 §2.1.4 consistency proof,
 *   docs/protocol.md §6.3);
 * - the **checkpoint-log path** (docs/protocol.md §13.5 "The checkpoint log"): the signed user
 *   checkpoint opened with pinned log keys, its entry in the checkpoint log, and that log's root
 *   read from the authority's checkpoint log account ({@link verifyThroughCheckpointLog}).
 * Nothing is taken from the memory API except the bundle itself, consistency proofs (verified,
 * never trusted) and, when no log key is pinned, the `logKeys` of `GET /info`.
 * @module
 */
import {
  fromHex,
  ProofError,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import type { NoteVerifier } from "@verifiable-memory/signed-note";
import {
  ChainReadError,
  commitmentAddress,
  InvalidAccountError,
  type ReadAccountOptions,
  readCommitmentAccount,
} from "./account.js";
import { base64Bytes } from "./base64.js";
import { BundleFormatError, type ProofBundle, parseInput } from "./bundle.js";
import {
  type ConsistencyFetcherOptions,
  consistencyFetcher,
  type FetchConsistency,
  type FetchLogConsistency,
  logConsistencyFetcher,
  proofOfAnswer,
} from "./consistency.js";
import { contentHashOf, leafHashOf } from "./leaf.js";
import { logKeysFromInfo, parseLogKeys } from "./log-keys.js";
import { verifyThroughCheckpointLog } from "./log-path.js";
import { CheckLog, type VerifyResult } from "./result.js";

/** Options of {@link verifyBundle}. */
export interface VerifyOptions extends ReadAccountOptions {
  /** Solana JSON-RPC endpoint the verifier trusts (never the memory API). */
  readonly rpcUrl: string;
  /** Commitment program id, base58; default the bundle's `anchor.programId`. */
  readonly programId?: string;
  /** The memory's plaintext; default the input's own `content` when present. */
  readonly content?: string;
  /**
   * Expected authority, base58: of the owner's commitment account (account path), and whose
   * checkpoint log account it must be (checkpoint-log path). See docs: first-initializer caveat.
   */
  readonly authority?: string;
  /**
   * Trusted log verifier keys (`<LOG_ORIGIN>+<key id>+<base64 key>`, docs/protocol.md §13.1), for
   * the checkpoint-log path; several during a key rotation. Without them, the `logKeys` of
   * `GET {apiUrl}/info` are used when `apiUrl` is given (a convenience: it trusts the API).
   */
  readonly logKeys?: readonly string[];
  /**
   * The memory API's base URL. An older checkpoint is bridged by a consistency proof from its
   * public routes (`GET /owners/{owner}/consistency` for the account path, `GET /tlog/consistency`
   * for the checkpoint-log path; no credential; `fetch` and `timeoutMs` apply), verified against
   * the bundle's root and the on-chain root. Without it (or the fetchers) such a bundle is
   * `stale_checkpoint`.
   */
  readonly apiUrl?: string;
  /** Obtains the owner's consistency proof instead of `apiUrl` (takes precedence over it). */
  readonly fetchConsistency?: FetchConsistency;
  /** Obtains the checkpoint log's consistency proof instead of `apiUrl` (takes precedence). */
  readonly fetchLogConsistency?: FetchLogConsistency;
}

function fetchOptions(options: VerifyOptions): ConsistencyFetcherOptions {
  return {
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
}

/** The trusted log keys: pinned, else those of `GET /info`, else why there are none. */
async function logKeysOf(
  options: VerifyOptions,
  pinned: NoteVerifier[] | null,
): Promise<NoteVerifier[] | { unavailable: string }> {
  if (pinned !== null) {
    return pinned;
  }
  if (options.apiUrl === undefined) {
    return { unavailable: "pin the log's verifier keys (--log-key), or give the API's URL" };
  }
  try {
    return parseLogKeys(await logKeysFromInfo(options.apiUrl, fetchOptions(options)));
  } catch (error) {
    return { unavailable: `GET /info gave none: ${(error as Error).message}` };
  }
}

/**
 * Verifies a proof bundle (or a grant's memory object with a nested `proof`) against the chain.
 * Common checks: bundle shape (`malformed_bundle`); a path covers the memory (`not_anchored`);
 * leaf hash = SHA-256(0x00 ‖ RFC 8785(leafData)) and leafData.memoryId = memoryId
 * (`leaf_mismatch`); content hash when content is given (`content_mismatch`).
 *
 * The account path, taken when `anchored` is true and the bundle carries the owner's checkpoint,
 * inclusion proof and anchor: the owner's PDA under the program id equals
 * `anchor.account`; the account read from `rpcUrl` exists, is the program's, commits that owner
 * and (when given) has the expected authority; the bundle's checkpoint equals the on-chain
 * (memoryCount, root); the inclusion proof of leafIndex yields the on-chain root. An OLD bundle
 * (checkpoint size M < the on-chain N) is bridged when `apiUrl` or `fetchConsistency` is given
 * (docs/protocol.md §6.3), else `stale_checkpoint`; a bundle newer than the chain is
 * `checkpoint_mismatch`.
 *
 * The checkpoint-log path, taken otherwise when `checkpointLog` is present
 * (docs/protocol.md §13.5 "The checkpoint log"): see {@link verifyThroughCheckpointLog}.
 * @returns `{ verified, reason, message, path, onChain, checkpointLog, logKey, contentChecked,
 *   bridged, checks }`; never throws for a bad bundle, an unreachable chain or API.
 * @throws TypeError when `options.rpcUrl` is not a string, `options.apiUrl` is not an absolute
 *   http(s) URL, or a `logKeys` entry is not a verifier key.
 * @example const r = await verifyBundle(JSON.parse(text), { rpcUrl: "https://api.devnet.solana.com" });
 * @example const old = await verifyBundle(saved, { rpcUrl, apiUrl: "https://memory.example.com" });
 */
export async function verifyBundle(input: unknown, options: VerifyOptions): Promise<VerifyResult> {
  if (typeof options.rpcUrl !== "string" || options.rpcUrl.length === 0) {
    throw new TypeError("options.rpcUrl must be a non-empty string");
  }
  const fetchConsistency =
    options.fetchConsistency ??
    (options.apiUrl === undefined
      ? null
      : consistencyFetcher(options.apiUrl, fetchOptions(options)));
  const fetchLogConsistency =
    options.fetchLogConsistency ??
    (options.apiUrl === undefined
      ? null
      : logConsistencyFetcher(options.apiUrl, fetchOptions(options)));
  const pinned = options.logKeys === undefined ? null : parseLogKeys(options.logKeys);
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

  const onAccount =
    bundle.anchored &&
    bundle.checkpoint !== null &&
    bundle.inclusionProof !== null &&
    bundle.anchor !== null;
  if (onAccount) {
    log.path = "account";
    log.pass(
      "anchored",
      `cut at the owner's anchored checkpoint of size ${bundle.checkpoint?.treeSize} (transaction ${bundle.anchor?.signature})`,
    );
  } else if (bundle.checkpointLog) {
    log.path = "checkpoint_log";
    log.pass(
      "anchored",
      `covered by entry ${bundle.checkpointLog.leafIndex} of the checkpoint log of size ${bundle.checkpointLog.treeSize} (transaction ${bundle.checkpointLog.anchor.signature})`,
    );
  } else {
    return log.fail(
      "anchored",
      "not_anchored",
      "the memory is not covered by an anchored checkpoint yet",
    );
  }
  const leafHash = leafHashOf(bundle.leafData);
  if (toHex(leafHash) !== bundle.leafHash || bundle.leafData.memoryId !== bundle.memoryId) {
    return log.fail(
      "leaf",
      "leaf_mismatch",
      "the leaf data does not hash to the bundle's leaf hash",
    );
  }
  log.pass("leaf", `SHA-256(0x00 ‖ RFC 8785(leafData)) = ${bundle.leafHash}`);
  if (content !== null) {
    const salt = base64Bytes(bundle.salt);
    if (contentHashOf(salt, content) !== bundle.leafData.contentHash) {
      return log.fail(
        "content",
        "content_mismatch",
        "SHA-256(salt ‖ content) differs from the leaf's contentHash",
      );
    }
    log.contentChecked = true;
    log.pass("content", `SHA-256(salt ‖ content) = ${bundle.leafData.contentHash}`);
  }
  if (!onAccount && bundle.checkpointLog) {
    return verifyThroughCheckpointLog({
      log,
      proof: bundle.checkpointLog,
      owner: bundle.leafData.owner,
      leafIndex: bundle.leafIndex,
      leafHash,
      rpcUrl: options.rpcUrl,
      readOptions: options,
      programId: options.programId,
      authority: options.authority,
      keys: await logKeysOf(options, pinned),
      fetchLogConsistency,
    });
  }
  return throughAccount(log, bundle, leafHash, options, fetchConsistency);
}

/** The account path of {@link verifyBundle}, after the common checks. */
async function throughAccount(
  log: CheckLog,
  bundle: ProofBundle,
  leafHash: Uint8Array,
  options: VerifyOptions,
  fetchConsistency: FetchConsistency | null,
): Promise<VerifyResult> {
  const anchor = bundle.anchor as NonNullable<ProofBundle["anchor"]>;
  const checkpoint = bundle.checkpoint as NonNullable<ProofBundle["checkpoint"]>;
  const programId = options.programId ?? anchor.programId;
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
  if (account !== anchor.account) {
    return log.fail(
      "account",
      "account_mismatch",
      `the owner's commitment PDA under program ${programId} is ${account}, not ${anchor.account}`,
    );
  }
  log.pass("account", `the owner's commitment PDA under program ${programId} is ${account}`);

  try {
    log.onChain = await readCommitmentAccount(options.rpcUrl, account, programId, options);
  } catch (error) {
    if (error instanceof ChainReadError) {
      return log.fail("chain", "chain_unavailable", `could not read the chain: ${error.message}`);
    }
    if (error instanceof InvalidAccountError) {
      return log.fail("chain", "invalid_account", error.message);
    }
    throw error;
  }
  const onChain = log.onChain;
  if (onChain === null) {
    return log.fail("chain", "account_not_found", `no commitment account at ${account}`);
  }
  if (onChain.owner !== bundle.leafData.owner) {
    return log.fail("chain", "invalid_account", `the account commits ${onChain.owner}'s log`);
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
      );
    }
    log.pass("authority", `the account's authority is ${onChain.authority}`);
  }

  const { treeSize, rootHash } = checkpoint;
  if (treeSize < onChain.memoryCount) {
    if (fetchConsistency === null) {
      return log.fail(
        "checkpoint",
        "stale_checkpoint",
        `the bundle's checkpoint (size ${treeSize}) is older than the on-chain tip (size ${onChain.memoryCount}); fetch a fresh proof, or give the API's URL to bridge it with a consistency proof`,
      );
    }
    log.pass(
      "checkpoint",
      `the bundle's checkpoint (size ${treeSize}) is older than the on-chain tip (size ${onChain.memoryCount}): bridged by a consistency proof`,
    );
    return bridge(log, bundle, leafHash, fetchConsistency);
  }
  if (treeSize !== onChain.memoryCount || rootHash !== onChain.root) {
    return log.fail(
      "checkpoint",
      "checkpoint_mismatch",
      `the bundle's checkpoint (size ${treeSize}, root ${rootHash}) is not the on-chain commitment (size ${onChain.memoryCount}, root ${onChain.root})`,
    );
  }
  log.pass("checkpoint", `the bundle's checkpoint is the on-chain commitment (size ${treeSize})`);
  const failure = inclusionFails(bundle, leafHash, onChain.memoryCount, fromHex(onChain.root));
  if (failure !== null) {
    return log.fail(
      "inclusion",
      "proof_invalid",
      `the inclusion proof does not lead to the on-chain root (${failure})`,
    );
  }
  log.pass(
    "inclusion",
    `the inclusion proof of leaf ${bundle.leafIndex} (${bundle.inclusionProof?.length} nodes) leads to the on-chain root`,
  );
  return log.verified(
    `leaf ${bundle.leafIndex} is included in the tree of ${onChain.memoryCount} leaves committed at ${account} (nonce ${onChain.nonce})`,
  );
}

/** The ProofError reason of the bundle's inclusion proof at `size` against `root`, or null. */
function inclusionFails(
  bundle: ProofBundle,
  leafHash: Uint8Array,
  size: number,
  root: Uint8Array,
): string | null {
  try {
    verifyInclusion(
      bundle.leafIndex,
      size,
      leafHash,
      (bundle.inclusionProof ?? []).map((node) => fromHex(node)),
      root,
    );
    return null;
  } catch (error) {
    if (error instanceof ProofError) {
      return error.reason;
    }
    throw error;
  }
}

/**
 * The old-bundle path of the account path: the bundle's checkpoint (M, rootM) is older than the
 * on-chain (N, rootN). Checks the inclusion proof against rootM at size M (RFC 9162 §2.1.3.2),
 * then obtains PROOF(M, D[N]) for the bundle's owner and verifies it between (M, rootM) and
 * (N, rootN) (RFC 9162 §2.1.4.2). rootN is the one read from the chain; whatever roots the answer
 * reports are ignored.
 */
async function bridge(
  log: CheckLog,
  bundle: ProofBundle,
  leafHash: Uint8Array,
  fetchConsistency: FetchConsistency,
): Promise<VerifyResult> {
  const onChain = log.onChain as NonNullable<CheckLog["onChain"]>;
  const checkpoint = bundle.checkpoint as NonNullable<ProofBundle["checkpoint"]>;
  const from = checkpoint.treeSize;
  const to = onChain.memoryCount;
  const oldRoot = fromHex(checkpoint.rootHash);
  const failure = inclusionFails(bundle, leafHash, from, oldRoot);
  if (failure !== null) {
    return log.fail(
      "inclusion",
      "proof_invalid",
      `the inclusion proof does not lead to the bundle's root at size ${from} (${failure})`,
    );
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
    );
  }
  const proof = proofOfAnswer(answer);
  if (proof === null) {
    return log.fail(
      "consistency",
      "consistency_invalid",
      "the consistency answer carries no proof of 64-lowercase-hex nodes",
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
      );
    }
    throw error;
  }
  log.pass(
    "consistency",
    `the consistency proof ${from} → ${to} (${proof.length} nodes) links the bundle's root to the on-chain root`,
  );
  return log.verified(
    `leaf ${bundle.leafIndex} is included in the tree of ${from} leaves of the bundle's checkpoint, which the tree of ${to} leaves committed at ${onChain.account} (nonce ${onChain.nonce}) extends (consistency proof ${from} → ${to})`,
    { from, to, proof },
  );
}
