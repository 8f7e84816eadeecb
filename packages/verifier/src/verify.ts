/**
 * Third-party verification of a memory (docs/protocol.md §4 "A proof for a memory can be checked by anyone
 * against the chain"; docs/protocol.md §6 "Permissionless check"): recompute the leaf from its data (and
 * the content, when given), read the owner's commitment account from a chain RPC chosen by the
 * verifier, and check the RFC 9162 §2.1.3.2 inclusion proof against the ON-CHAIN root and memory
 * count. Nothing is taken from the memory API except the bundle itself.
 * @module
 */
import { fromHex, ProofError, toHex, verifyInclusion } from "@svc/merkle-log";
import {
  ChainReadError,
  commitmentAddress,
  InvalidAccountError,
  type OnChainCommitment,
  type ReadAccountOptions,
  readCommitmentAccount,
} from "./account.js";
import { BundleFormatError, parseInput } from "./bundle.js";
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
 * - `stale_checkpoint`: the bundle's checkpoint is older than the on-chain tip (fetch a fresh
 *   bundle);
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
  | "checkpoint_mismatch"
  | "proof_invalid"
  | "chain_unavailable";

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
}

function fail(
  reason: VerifyReason,
  message: string,
  onChain: OnChainCommitment | null = null,
  contentChecked = false,
): VerifyResult {
  return { verified: false, reason, message, onChain, contentChecked };
}

/**
 * Verifies a proof bundle (or a grant's memory object with a nested `proof`) against the chain.
 * Checks in order: bundle shape; anchored; leaf hash = SHA-256(0x00 ‖ RFC 8785(leafData)) and
 * leafData.memoryId = memoryId; content hash (when content is given); the owner's PDA under the
 * program id equals `anchor.account`; the account read from `rpcUrl` exists, is owned by the
 * program, is a commitment account of that owner, and (when given) has the expected authority;
 * the bundle's checkpoint equals the on-chain (memoryCount, root); the inclusion proof of
 * leafIndex in a tree of memoryCount leaves yields the on-chain root.
 * @returns `{ verified, reason, message, onChain, contentChecked }`; never throws for a bad
 *   bundle or an unreachable chain (reasons `malformed_bundle`, `chain_unavailable`).
 * @throws TypeError when `options.rpcUrl` is not a string.
 * @example const r = await verifyBundle(JSON.parse(text), { rpcUrl: "https://api.devnet.solana.com" });
 */
export async function verifyBundle(input: unknown, options: VerifyOptions): Promise<VerifyResult> {
  if (typeof options.rpcUrl !== "string" || options.rpcUrl.length === 0) {
    throw new TypeError("options.rpcUrl must be a non-empty string");
  }
  let parsed: ReturnType<typeof parseInput>;
  try {
    parsed = parseInput(input);
  } catch (error) {
    if (error instanceof BundleFormatError) {
      return fail("malformed_bundle", error.message);
    }
    throw error;
  }
  const { bundle } = parsed;
  const content = options.content ?? parsed.content;

  if (!bundle.anchored || !bundle.checkpoint || !bundle.inclusionProof || !bundle.anchor) {
    return fail("not_anchored", "the memory is not covered by an anchored checkpoint yet");
  }
  const leafHash = leafHashOf(bundle.leafData);
  if (toHex(leafHash) !== bundle.leafHash || bundle.leafData.memoryId !== bundle.memoryId) {
    return fail("leaf_mismatch", "the leaf data does not hash to the bundle's leaf hash");
  }
  const contentChecked = content !== null;
  if (content !== null) {
    const salt = Buffer.from(bundle.salt, "base64");
    if (contentHashOf(salt, content) !== bundle.leafData.contentHash) {
      return fail(
        "content_mismatch",
        "SHA-256(salt ‖ content) differs from the leaf's contentHash",
      );
    }
  }

  const programId = options.programId ?? bundle.anchor.programId;
  let account: string;
  try {
    account = commitmentAddress(bundle.leafData.owner, programId);
  } catch {
    return fail("malformed_bundle", "the owner or the program id is not a base58 public key");
  }
  if (account !== bundle.anchor.account) {
    return fail(
      "account_mismatch",
      `the owner's commitment PDA under program ${programId} is ${account}, not ${bundle.anchor.account}`,
    );
  }

  let onChain: OnChainCommitment | null;
  try {
    onChain = await readCommitmentAccount(options.rpcUrl, account, programId, options);
  } catch (error) {
    if (error instanceof ChainReadError) {
      return fail("chain_unavailable", `could not read the chain: ${error.message}`);
    }
    if (error instanceof InvalidAccountError) {
      return fail("invalid_account", error.message);
    }
    throw error;
  }
  if (onChain === null) {
    return fail("account_not_found", `no commitment account at ${account}`);
  }
  if (onChain.owner !== bundle.leafData.owner) {
    return fail("invalid_account", `the account commits ${onChain.owner}'s log`, onChain);
  }
  if (options.authority !== undefined && onChain.authority !== options.authority) {
    return fail(
      "authority_mismatch",
      `the account's authority is ${onChain.authority}, not ${options.authority}`,
      onChain,
    );
  }

  const { treeSize, rootHash } = bundle.checkpoint;
  if (treeSize < onChain.memoryCount) {
    return fail(
      "stale_checkpoint",
      `the bundle's checkpoint (size ${treeSize}) is older than the on-chain tip (size ${onChain.memoryCount}); fetch a fresh proof`,
      onChain,
      contentChecked,
    );
  }
  if (treeSize !== onChain.memoryCount || rootHash !== onChain.root) {
    return fail(
      "checkpoint_mismatch",
      `the bundle's checkpoint (size ${treeSize}) is not the on-chain commitment (size ${onChain.memoryCount})`,
      onChain,
      contentChecked,
    );
  }

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
      return fail(
        "proof_invalid",
        `the inclusion proof does not lead to the on-chain root (${error.reason})`,
        onChain,
        contentChecked,
      );
    }
    throw error;
  }
  return {
    verified: true,
    reason: null,
    message: `leaf ${bundle.leafIndex} is included in the tree of ${onChain.memoryCount} leaves committed at ${account} (nonce ${onChain.nonce})`,
    onChain,
    contentChecked,
  };
}
