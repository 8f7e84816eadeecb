/**
 * The checkpoint log's appender and anchor (docs/protocol.md §13.5 "The checkpoint log"): after
 * each sweep the leader compares its stored checkpoint log with the checkpoint log account on
 * chain and refuses to go on from a fork (a database restored behind the account, say); then it
 * appends the user checkpoints anchored since the last append, as entries (their unsigned note
 * texts, §13.3 "User checkpoints"), signs the checkpoint log's new checkpoint with the log key,
 * and anchors its root and size in ONE legacy transaction.
 * @module
 */
import type { LogKey } from "@verifiable-memory/app-config";
import { type ChainClient, ChainError } from "@verifiable-memory/chain-commit";
import {
  appendCheckpointLog,
  type CheckpointLogAppendResult,
  type CheckpointLogHead,
  checkpointLogRootAt,
  type Database,
  latestCheckpointLogHead,
  recordCheckpointLogAnchor,
  type SealedCheckpoint,
} from "@verifiable-memory/db-schema";
import { toHex } from "@verifiable-memory/merkle-log";
import { formatCheckpoint, signNote, userLogOrigin } from "@verifiable-memory/signed-note";
import type { Logger } from "pino";
import type { AnchorMetrics } from "./metrics.js";

/** Entries appended by one call at most; more wait for the next interval. */
export const MAX_ENTRIES_PER_APPEND = 50_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Appends every anchored user checkpoint not yet in the checkpoint log, then the `sealed` user
 * trees (whose per-user commit waits for USER_ANCHOR_INTERVAL_MS) above every size logged for
 * their user, each stored with its user checkpoint signed by the log key, and signs the log's
 * new checkpoint (origin LOG_ORIGIN, key name LOG_ORIGIN) in one database transaction. It does
 * not look at the chain: {@link anchorCheckpointLog} checks the account first.
 * @returns the new head and the number of entries, or null when nothing was waiting.
 * @throws the database's errors (nothing is written then).
 * Source: docs/protocol.md §13.5 "The checkpoint log".
 */
export function appendUserCheckpoints(
  db: Database,
  logKey: LogKey,
  maxEntries = MAX_ENTRIES_PER_APPEND,
  sealed: readonly SealedCheckpoint[] = [],
): Promise<CheckpointLogAppendResult> {
  return appendCheckpointLog(db, {
    maxEntries,
    sealed,
    noteOf: (entry) => signNote(decoder.decode(entry), [logKey.signer]),
    entryOf: (checkpoint) =>
      encoder.encode(
        formatCheckpoint({
          origin: userLogOrigin(logKey.origin, checkpoint.owner),
          size: checkpoint.treeSize,
          rootHash: checkpoint.root,
          extensions: [],
        }),
      ),
    sign: (size, root) =>
      signNote(formatCheckpoint({ origin: logKey.origin, size, rootHash: root, extensions: [] }), [
        logKey.signer,
      ]),
  });
}

/** The chain operations of the checkpoint log: a structural subset of ChainClient. */
export type CheckpointLogChain = Pick<
  ChainClient,
  "readCheckpointLog" | "commitCheckpointLog" | "checkpointLogAddress"
>;

/** What {@link anchorCheckpointLog} needs. */
export interface CheckpointLogDeps {
  readonly db: Database;
  readonly logKey: LogKey;
  readonly chain: CheckpointLogChain;
  readonly logger: Logger;
  readonly metrics: AnchorMetrics;
  /** Clock, ms since the epoch (default Date.now), for the anchor's time. */
  readonly now?: () => number;
  /** Entries appended at most (default {@link MAX_ENTRIES_PER_APPEND}). */
  readonly maxEntries?: number;
  /** Sealed user trees of this sweep whose per-user commit waits (logged as well). */
  readonly sealed?: readonly SealedCheckpoint[];
}

/** Why the stored checkpoint log is a fork of the account's. */
export type CheckpointLogConflict = "account_ahead" | "root_conflict";

/** The outcome of one {@link anchorCheckpointLog} run. */
export type CheckpointLogOutcome =
  /** The latest head's root and size are now in the account. */
  | {
      readonly outcome: "anchored";
      readonly appended: number;
      readonly size: number;
      readonly signature: string;
      readonly slot: number;
      readonly nonce: number;
    }
  /** Nothing new: the account already holds the latest head (or the log is empty). */
  | { readonly outcome: "current"; readonly size: number }
  /** The stored log is not an extension of the account's: nothing signed, nothing sent. */
  | {
      readonly outcome: "refused";
      readonly reason: CheckpointLogConflict;
      readonly accountSize: number;
      readonly storedSize: number;
    }
  /**
   * Nothing signed (`unavailable`: the account could not be read) or the head signed but not
   * anchored (`failed`: refused or not sent; `timeout`: sent, outcome unknown); the next run
   * retries with the latest head.
   */
  | {
      readonly outcome: "unavailable" | "failed" | "timeout";
      readonly reason: string;
      readonly appended: number;
    };

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * The fork rule: the account's (size, root) must be a prefix of the stored log, so the stored
 * log at the account's size must have the account's root.
 * @returns the conflict, or null when the stored log extends the account (or the account is
 *   missing or has no commit yet).
 */
async function conflictWith(
  db: Database,
  account: { size: number; root: Uint8Array } | null,
  head: CheckpointLogHead | null,
): Promise<CheckpointLogConflict | null> {
  if (!account || account.size === 0) {
    return null;
  }
  if (!head || account.size > head.treeSize) {
    return "account_ahead";
  }
  const root =
    account.size === head.treeSize ? head.root : await checkpointLogRootAt(db, account.size);
  return sameBytes(root, account.root) ? null : "root_conflict";
}

/**
 * One checkpoint-log step of the leader, after a sweep: (1) read the checkpoint log account and
 * the stored head, and refuse (error log, `checkpoint_log_fork` integrity report, nothing signed
 * or sent) when the account is ahead of the stored log or holds another root at a size the log
 * has; (2) append and sign ({@link appendUserCheckpoints}); (3) when the latest head is beyond the
 * account, anchor it in one legacy transaction (`initialize_checkpoint_log` on first use, then
 * `commit_checkpoint_log` with the account's nonce) and record signature, slot and nonce on the
 * head. Chain errors become outcomes; every run counts in
 * `anchor_checkpoint_log_anchors_total{outcome}`.
 * @returns the outcome.
 * @throws the database's errors (an append is all or nothing; a confirmed anchor whose record
 *   failed is seen again by the next run, which finds the account current).
 * Source: docs/protocol.md §13.5 "The checkpoint log".
 */
export async function anchorCheckpointLog(deps: CheckpointLogDeps): Promise<CheckpointLogOutcome> {
  const outcome = await step(deps);
  deps.metrics.checkpointLogAnchors.inc({ outcome: outcome.outcome });
  return outcome;
}

async function step(deps: CheckpointLogDeps): Promise<CheckpointLogOutcome> {
  const { db, chain, logger, metrics } = deps;
  let account: Awaited<ReturnType<CheckpointLogChain["readCheckpointLog"]>>;
  try {
    account = await chain.readCheckpointLog();
  } catch (error) {
    if (!(error instanceof ChainError)) {
      throw error;
    }
    metrics.chainReadFailures.inc({ op: "checkpoint_log" });
    logger.warn({ err: error }, "checkpoint log account unreadable; not signing this interval");
    return { outcome: "unavailable", reason: error.code, appended: 0 };
  }
  const stored = await latestCheckpointLogHead(db);
  const conflict = await conflictWith(db, account, stored);
  if (conflict && account) {
    const details = {
      reason: conflict,
      accountSize: account.size,
      accountRoot: toHex(account.root),
      storedSize: stored?.treeSize ?? 0,
      storedRoot: stored ? toHex(stored.root) : null,
    };
    metrics.integrityReports.inc({ kind: "checkpoint_log_fork" });
    logger.error(
      details,
      "the stored checkpoint log does not extend the checkpoint log account (database restored?); refusing to sign or anchor it",
    );
    return {
      outcome: "refused",
      reason: conflict,
      accountSize: account.size,
      storedSize: stored?.treeSize ?? 0,
    };
  }
  const appended = await appendUserCheckpoints(db, deps.logKey, deps.maxEntries, deps.sealed);
  if (appended) {
    logger.info(
      { size: appended.head.treeSize, appended: appended.appended },
      "checkpoint log appended",
    );
  }
  const head = appended?.head ?? stored;
  if (!head || head.treeSize <= (account?.size ?? 0)) {
    return { outcome: "current", size: head?.treeSize ?? 0 };
  }
  const count = appended?.appended ?? 0;
  try {
    const result = await chain.commitCheckpointLog(head.root, head.treeSize, account?.nonce ?? 0);
    await recordCheckpointLogAnchor(db, head.treeSize, {
      ...result,
      anchoredAt: new Date((deps.now ?? Date.now)()),
      account: chain.checkpointLogAddress,
    });
    logger.info(
      { size: head.treeSize, signature: result.signature, slot: result.slot, nonce: result.nonce },
      "checkpoint log anchored",
    );
    return { outcome: "anchored", appended: count, size: head.treeSize, ...result };
  } catch (error) {
    if (!(error instanceof ChainError)) {
      throw error;
    }
    const timeout = error.code === "confirmation_timeout";
    logger[timeout ? "warn" : "error"](
      { err: error, size: head.treeSize },
      timeout ? "checkpoint log anchor outcome unknown" : "anchoring the checkpoint log failed",
    );
    return { outcome: timeout ? "timeout" : "failed", reason: error.code, appended: count };
  }
}
