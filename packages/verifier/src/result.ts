/**
 * What {@link verifyBundle} answers (docs/protocol.md §6.7 "Permissionless verification
 * (`svc-verify`)"): the reasons a bundle does not verify, the checks made in order, and the
 * result, built by one {@link CheckLog} per run.
 * @module
 */
import type { OnChainCommitment } from "./account.js";
import type { OnChainCheckpointLog } from "./log-account.js";

/**
 * Why a bundle did not verify:
 * - `malformed_bundle`: the input is not a proof bundle;
 * - `not_anchored`: neither the owner's commitment account nor the checkpoint log covers the
 *   memory yet;
 * - `leaf_mismatch`: the leaf data does not hash to the bundle's leaf hash, or names another
 *   memory;
 * - `content_mismatch`: SHA-256(salt ‖ content) differs from the leaf's contentHash;
 * - `account_mismatch`: the bundle's account is not the PDA under the program id used (a wrong
 *   or foreign program id, or, on the checkpoint-log path, another authority than the pinned one);
 * - `account_not_found`: no commitment account at the PDA;
 * - `invalid_account`: the account is not a commitment (or checkpoint log) account of that
 *   program, or is another owner's (another authority's);
 * - `authority_mismatch`: the account's authority is not the expected one (`authority` option);
 * - `stale_checkpoint`: the bundle's checkpoint (or checkpoint log size) is older than the
 *   on-chain tip and no `apiUrl` / fetcher was given to bridge it;
 * - `consistency_invalid`: the consistency proof obtained does not show that the on-chain tree
 *   extends the bundle's (RFC 9162 §2.1.4.2), or the answer carries no well-formed proof;
 * - `consistency_unavailable`: no consistency proof could be obtained — unknown, not negative;
 * - `checkpoint_mismatch`: the bundle's checkpoint differs from the on-chain commitment at the
 *   same or a larger size (the API served a root the chain never held);
 * - `proof_invalid`: the inclusion proof does not lead to the (on-chain, or signed) root;
 * - `chain_unavailable`: the RPC could not be read — the result is unknown, not negative;
 * - `note_malformed`: the signed user checkpoint is not a signed note, not a checkpoint, or not
 *   of the origin `<LOG_ORIGIN>/users/<owner>` (docs/protocol.md §13.2 "Signed notes");
 * - `note_signature_invalid`: no pinned log key signed the user checkpoint, or a pinned key's
 *   signature does not verify (also when no log key was pinned or could be obtained);
 * - `entry_mismatch`: the checkpoint log entry is not the signed user checkpoint's text;
 * - `log_inclusion_invalid`: the entry's inclusion proof does not lead to the checkpoint log
 *   root the bundle names;
 * - `log_account_not_found`: no checkpoint log account at the bundle's address;
 * - `log_checkpoint_mismatch`: the bundle's checkpoint log (size, root) differs from the
 *   account's at the same size, or is larger than the account's.
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
  | "chain_unavailable"
  | "note_malformed"
  | "note_signature_invalid"
  | "entry_mismatch"
  | "log_inclusion_invalid"
  | "log_account_not_found"
  | "log_checkpoint_mismatch";

/**
 * The checks of {@link verifyBundle}, in the order it makes them (docs/verification.md):
 * `bundle` (the input's shape), `anchored` (which path covers the memory), `leaf` (leaf hash
 * recomputed), `content` (content hash, when content is given); then on the account path
 * `account` (the owner's PDA), `chain` (the account read from the RPC), `authority` (when
 * pinned), `checkpoint`, `inclusion`, `consistency`; on the checkpoint-log path `log_key` (the
 * trusted keys), `note` (the signed user checkpoint), `entry`, `inclusion` (leaf to the user
 * root), `log_inclusion` (entry to the checkpoint log root), `account` (the checkpoint log PDA),
 * `chain`, `authority`, `log_checkpoint` (the bundle's checkpoint log against the account),
 * `consistency` (an older size bridged to the account's).
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
  | "consistency"
  | "log_key"
  | "note"
  | "entry"
  | "log_inclusion"
  | "log_checkpoint";

/** One check {@link verifyBundle} made: passed or not, and what it compared, in one sentence. */
export interface VerifyCheck {
  readonly check: VerifyCheckName;
  readonly passed: boolean;
  readonly detail: string;
}

/**
 * How an older checkpoint was bridged to the on-chain root: the RFC 9162 §2.1.4 consistency proof
 * from size `from` (the bundle's) to `to` (the account's), as verified. On the account path the
 * sizes are the owner's log's; on the checkpoint-log path, the checkpoint log's.
 */
export interface ConsistencyBridge {
  readonly from: number;
  readonly to: number;
  /** PROOF(from, D[to]), lowercase hex. */
  readonly proof: readonly string[];
}

/**
 * Which anchoring the result stands on: `account` (the owner's commitment account, docs/protocol.md
 * §6.1), `checkpoint_log` (a signed user checkpoint logged in the checkpoint log anchored in the
 * authority's account, §13.5), or null when no path was taken (a malformed or unanchored bundle).
 */
export type VerifyPath = "account" | "checkpoint_log";

/** Result of {@link verifyBundle}. */
export interface VerifyResult {
  readonly verified: boolean;
  /** Null exactly when verified. */
  readonly reason: VerifyReason | null;
  /** One human-readable sentence. */
  readonly message: string;
  /** The path taken (null before one was chosen). */
  readonly path: VerifyPath | null;
  /** The owner's commitment account as read (account path; null when not read). */
  readonly onChain: OnChainCommitment | null;
  /** The checkpoint log account as read (checkpoint-log path; null when not read). */
  readonly checkpointLog: OnChainCheckpointLog | null;
  /** The verifier key that verified the signed user checkpoint (checkpoint-log path), else null. */
  readonly logKey: string | null;
  /** True when the memory's content was checked against the leaf as well. */
  readonly contentChecked: boolean;
  /** Set when verified through a consistency proof from an older size; null otherwise. */
  readonly bridged: ConsistencyBridge | null;
  /**
   * Every check made, in order: all passed when verified; otherwise the last one failed, with
   * the reason's message as its detail (also for the unknown results `chain_unavailable` and
   * `consistency_unavailable`).
   */
  readonly checks: readonly VerifyCheck[];
}

/** The checks made so far by one {@link verifyBundle} run, and what it has read. */
export class CheckLog {
  readonly checks: VerifyCheck[] = [];
  path: VerifyPath | null = null;
  onChain: OnChainCommitment | null = null;
  checkpointLog: OnChainCheckpointLog | null = null;
  logKey: string | null = null;
  contentChecked = false;

  /** Records `check` as passed. */
  pass(check: VerifyCheckName, detail: string): void {
    this.checks.push({ check, passed: true, detail });
  }

  /** Records `check` as failed and returns the failed result. */
  fail(check: VerifyCheckName, reason: VerifyReason, message: string): VerifyResult {
    this.checks.push({ check, passed: false, detail: message });
    return this.result(reason, message, null);
  }

  /** The verified result. */
  verified(message: string, bridged: ConsistencyBridge | null = null): VerifyResult {
    return this.result(null, message, bridged);
  }

  private result(
    reason: VerifyReason | null,
    message: string,
    bridged: ConsistencyBridge | null,
  ): VerifyResult {
    return {
      verified: reason === null,
      reason,
      message,
      path: this.path,
      onChain: this.onChain,
      checkpointLog: this.checkpointLog,
      logKey: this.logKey,
      contentChecked: this.contentChecked,
      bridged,
      checks: this.checks,
    };
  }
}
