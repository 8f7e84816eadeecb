/**
 * One anchor sweep (docs/protocol.md §7.6 "One user's anchoring and the commit batches", §7
 * Memory and Commit batch transitions, §1.8 "Failed reads", §7 operational requirements;
 * docs/protocol.md §7): seal every user whose pending leaves reached SEAL_MAX_PENDING or whose
 * oldest pending leaf reached SEAL_MAX_AGE_MS, and commit each sealed user's current root to their
 * commitment account, at most ANCHOR_MAX_IN_FLIGHT users at a time. Memories are marked anchored
 * only in the same transaction that records the confirmed batch and its checkpoint, so a crash or a
 * chain failure at any point never marks a memory anchored that no confirmed commit covers.
 * @module
 */
import {
  ChainError,
  ChainUnavailableError,
  ConfirmationTimeoutError,
  CountDecreasedError,
  InvalidCommitmentAccountError,
  UnauthorizedAuthorityError,
} from "@verifiable-memory/chain-commit";
import {
  checkTree,
  type Database,
  getLeafCount,
  getTree,
  insertAnchoredCheckpoint,
  insertSubmittedBatch,
  listUsersWithPendingLeaves,
  markAnchored,
  markBatchConfirmed,
  markBatchFailed,
  type PendingUser,
  rebuildTree,
  rootAtSize,
  type SealedCheckpoint,
  TreeCorruptError,
} from "@verifiable-memory/db-schema";
import { type Hash, MissingNodeError, toHex } from "@verifiable-memory/merkle-log";
import type { Logger } from "pino";
import type { AnchorChain } from "./chain.js";
import type { AnchorMetrics, CommitOutcome, IntegrityKind } from "./metrics.js";

/** Seal policy and concurrency (docs/protocol.md §7 defaults: 256 leaves, 300 000 ms; 8 in flight). */
export interface SweepConfig {
  /** Seal a user when at least this many leaves are pending. */
  readonly sealMaxPending: number;
  /** Seal a user when the oldest pending leaf is at least this old, ms. */
  readonly sealMaxAgeMs: number;
  /** Users anchored concurrently (in batched mode: transactions in flight). */
  readonly maxInFlight: number;
  /**
   * USER_ANCHOR_INTERVAL_MS: 0 (the default of this config; the service's is one hour) commits
   * each sealed user in its own transaction, every sweep; above 0, sealed users are committed
   * together with `commit_many` once per interval, and a sealed user without an account at once
   * (docs/protocol.md §7.6).
   */
  readonly userAnchorIntervalMs?: number;
}

/** When the per-user accounts were last committed in batched mode (kept by the worker). */
export interface UserAnchorState {
  /** Clock time of the last batched pass, ms; null before the first. */
  lastAt: number | null;
}

/** Dependencies of {@link runSweep}. */
export interface SweepDeps {
  readonly db: Database;
  readonly chain: AnchorChain;
  readonly config: SweepConfig;
  readonly logger: Logger;
  /** Clock, ms since the epoch (default Date.now); drives the age policy. */
  readonly now?: () => number;
  /** Updated when given. */
  readonly metrics?: AnchorMetrics;
  /** Batched mode's memory of its last pass; without it every sweep is a pass. */
  readonly userAnchorState?: UserAnchorState;
}

/** What happened to one sealed user. */
export interface UserOutcome {
  readonly userId: string;
  readonly outcome: CommitOutcome;
  /** Why it failed, timed out or was skipped; absent when confirmed. */
  readonly reason?: string;
  /** Tree size committed or attempted. */
  readonly treeSize?: number;
  /** The commitment nonce after a confirmed commit. */
  readonly nonce?: number;
  /** The confirmed transaction's signature. */
  readonly signature?: string;
}

/** Summary of one sweep. */
export interface SweepReport {
  /** Users that had pending leaves. */
  readonly pending: number;
  /** Users the seal policy selected. */
  readonly sealed: number;
  /** Commits confirmed (memories marked anchored). */
  readonly committed: number;
  /** Batches marked failed (nonce race, refused by the chain, send failed). */
  readonly failed: number;
  /** Users skipped (chain read failed, integrity finding, nothing to commit). */
  readonly skipped: number;
  /** Commits whose confirmation timed out (batch left submitted). */
  readonly timedOut: number;
  readonly durationMs: number;
  /** One entry per sealed user. */
  readonly outcomes: readonly UserOutcome[];
  /**
   * The sealed trees whose per-user commit waits for the next batched pass
   * (`user_anchor_interval`): the checkpoint log logs them (docs/protocol.md §13.5).
   */
  readonly waiting: readonly SealedCheckpoint[];
}

/**
 * Runs one sweep: lists users with pending leaves, applies the seal policy by the injected clock
 * (count ≥ sealMaxPending, or oldest pending age ≥ sealMaxAgeMs), and anchors each sealed user
 * with bounded concurrency. Per user:
 * 1. read the commitment account; a failed read skips the user (unknown, never zero);
 * 2. refuse an account whose authority is not ours (first-initializer caveat);
 * 3. make sure the persisted tree is sound (rebuild it from the leaves when missing or drifted);
 * 4. refuse when the chain holds more leaves than the local log (`shortened_log`), or a root at
 *    the on-chain size that the local log does not have (`root_conflict`);
 * 5. record a `submitted` batch (tree size, root, expected nonce = on-chain nonce, 0 if absent)
 *    and commit;
 * 6. confirmed → ONE transaction: memories with leaf index < size anchored, checkpoint inserted,
 *    batch `confirmed`; outcome unknown (confirmation timeout, or the RPC failed after the
 *    transaction was sent) → stays `submitted`; nonce race, count decreased (also reported),
 *    unauthorized (reported), insufficient funds, or a send that failed before reaching the chain
 *    → `failed`, the error's code and message stored in the batch.
 * Errors of one user never abort the others. The sweep itself throws only when the pending-user
 * listing fails (database unreachable).
 * @returns the {@link SweepReport}.
 * @throws RangeError on a malformed config; the database error of the pending-user listing.
 */
export async function runSweep(deps: SweepDeps): Promise<SweepReport> {
  const { config, metrics } = deps;
  assertConfig(config);
  const now = deps.now ?? Date.now;
  const started = performance.now();
  await refreshBalance(deps);

  const pending = await listUsersWithPendingLeaves(deps.db);
  const at = now();
  const sealed = pending.filter(
    (user) =>
      user.count >= config.sealMaxPending ||
      (user.oldestCreatedAt !== null && at - user.oldestCreatedAt.getTime() >= config.sealMaxAgeMs),
  );

  const waiting: SealedCheckpoint[] = [];
  const outcomes =
    (config.userAnchorIntervalMs ?? 0) > 0
      ? await anchorBatched(deps, sealed, at, waiting)
      : await mapLimit(sealed, config.maxInFlight, (user) =>
          anchorUser(deps, user).catch(internalError(deps, user)),
        );
  const count = (outcome: CommitOutcome) => outcomes.filter((o) => o.outcome === outcome).length;
  const durationMs = performance.now() - started;
  if (metrics) {
    metrics.sweepDuration.observe(durationMs / 1000);
    metrics.usersSealed.set(sealed.length);
    metrics.sweeps.inc();
    metrics.lastSweep.set(now() / 1000);
    for (const o of outcomes) {
      metrics.commits.inc({ outcome: o.outcome });
    }
  }
  return {
    pending: pending.length,
    sealed: sealed.length,
    committed: count("confirmed"),
    failed: count("failed"),
    skipped: count("skipped"),
    timedOut: count("timeout"),
    durationMs,
    outcomes,
    waiting,
  };
}

/**
 * The outcome of a user whose anchoring threw (a database error mid-way): nothing was marked
 * anchored (that happens only in the final transaction); a batch already recorded stays
 * submitted and the next sweep re-commits.
 */
function internalError(deps: SweepDeps, user: PendingUser): (error: unknown) => UserOutcome {
  return (error) => {
    deps.logger.error({ err: error, userId: user.userId }, "anchoring the user failed");
    return { userId: user.userId, outcome: "skipped", reason: "internal_error" };
  };
}

function assertConfig(config: SweepConfig): void {
  const checks: [keyof SweepConfig, number][] = [
    ["sealMaxPending", 1],
    ["sealMaxAgeMs", 0],
    ["maxInFlight", 1],
    ["userAnchorIntervalMs", 0],
  ];
  for (const [key, min] of checks) {
    const value = config[key] ?? 0;
    if (!Number.isSafeInteger(value) || value < min) {
      throw new RangeError(`config.${key} must be an integer >= ${min}, got ${value}`);
    }
  }
}

/** Refreshes the authority balance gauge; a failed read leaves the last value and is counted. */
async function refreshBalance(deps: SweepDeps): Promise<void> {
  if (!deps.metrics) {
    return;
  }
  try {
    deps.metrics.authorityBalance.set(Number(await deps.chain.authorityBalance()));
  } catch (error) {
    deps.metrics.chainReadFailures.inc({ op: "balance" });
    deps.logger.warn({ err: error }, "authority balance read failed (unknown, not zero)");
  }
}

/** A sealed user ready to commit: steps 1–4 passed. */
interface Prepared {
  readonly user: PendingUser;
  readonly tree: { size: number; root: Hash };
  readonly expectedNonce: number;
  /** No commitment account exists yet. */
  readonly isNew: boolean;
  readonly log: Logger;
  readonly report: (kind: IntegrityKind, message: string, details: object) => void;
}

/** Anchors one sealed user; chain errors become outcomes, database errors reject. */
async function anchorUser(deps: SweepDeps, user: PendingUser): Promise<UserOutcome> {
  const prepared = await prepareUser(deps, user);
  if (!("tree" in prepared)) {
    return prepared;
  }
  const batchId = await submit(deps, prepared);
  try {
    const result = await deps.chain.commit(
      user.ownerPubkey,
      prepared.tree.root,
      prepared.tree.size,
      prepared.expectedNonce,
    );
    return await settle(deps, prepared, batchId, { result });
  } catch (error) {
    const unknown =
      error instanceof ConfirmationTimeoutError ||
      (error instanceof ChainUnavailableError && error.signature !== null);
    return settle(deps, prepared, batchId, { error: error as Error, unknown });
  }
}

/**
 * Batched mode (USER_ANCHOR_INTERVAL_MS > 0): prepares every sealed user, then commits those
 * without an account (their first anchor) and, once per interval, all the others together with
 * the chain client's `commitMany`; the rest wait for the next pass (`user_anchor_interval`), their
 * sealed trees pushed to `waiting`.
 * @throws RangeError when the chain has no commitMany.
 */
async function anchorBatched(
  deps: SweepDeps,
  sealed: readonly PendingUser[],
  at: number,
  waiting: SealedCheckpoint[],
): Promise<UserOutcome[]> {
  const { chain, config } = deps;
  if (!chain.commitMany) {
    throw new RangeError("USER_ANCHOR_INTERVAL_MS > 0 needs a chain client with commitMany");
  }
  const state = deps.userAnchorState ?? { lastAt: null };
  const due = state.lastAt === null || at - state.lastAt >= (config.userAnchorIntervalMs ?? 0);
  if (due) {
    state.lastAt = at;
  }
  const prepared = await mapLimit(sealed, config.maxInFlight, (user) =>
    prepareUser(deps, user).catch(internalError(deps, user)),
  );
  const results: UserOutcome[] = [];
  const commits: { index: number; prepared: Prepared; batchId: string }[] = [];
  for (const [index, p] of prepared.entries()) {
    if (!("tree" in p)) {
      results[index] = p;
    } else if (due || p.isNew) {
      commits.push({ index, prepared: p, batchId: await submit(deps, p) });
    } else {
      results[index] = {
        userId: p.user.userId,
        outcome: "skipped",
        reason: "user_anchor_interval",
        treeSize: p.tree.size,
      };
      waiting.push({
        userId: p.user.userId,
        owner: p.user.ownerPubkey,
        treeSize: p.tree.size,
        root: p.tree.root,
      });
    }
  }
  if (commits.length === 0) {
    return results;
  }
  let outcomes: Awaited<ReturnType<NonNullable<AnchorChain["commitMany"]>>>;
  try {
    outcomes = await chain.commitMany(
      commits.map(({ prepared: p }) => ({
        owner: p.user.ownerPubkey,
        root: p.tree.root,
        memoryCount: p.tree.size,
        expectedNonce: p.expectedNonce,
      })),
      config.maxInFlight,
    );
  } catch (error) {
    // The lookup of new accounts failed: nothing was sent.
    outcomes = commits.map(({ prepared: p }) => ({
      owner: p.user.ownerPubkey,
      status: "failed" as const,
      error: error as Error,
    }));
  }
  await Promise.all(
    commits.map(async ({ index, prepared: p, batchId }, i) => {
      const outcome = outcomes[i];
      const settled =
        outcome?.status === "confirmed"
          ? settle(deps, p, batchId, { result: outcome })
          : settle(deps, p, batchId, {
              error: outcome?.error ?? new Error("no outcome"),
              unknown: outcome?.status === "unknown",
            });
      results[index] = await settled.catch(internalError(deps, p.user));
    }),
  );
  return results;
}

/** Steps 1–4 of one sealed user: a {@link Prepared} user, or the outcome that skips it. */
async function prepareUser(deps: SweepDeps, user: PendingUser): Promise<Prepared | UserOutcome> {
  const { db, chain, logger, metrics } = deps;
  const log = logger.child({ userId: user.userId, owner: user.ownerPubkey });
  const skipped = (reason: string): UserOutcome => ({
    userId: user.userId,
    outcome: "skipped",
    reason,
  });
  const report = (kind: IntegrityKind, message: string, details: object): void => {
    metrics?.integrityReports.inc({ kind });
    log.error({ kind, ...details }, message);
  };

  let account: Awaited<ReturnType<AnchorChain["readCommitment"]>>;
  try {
    account = await chain.readCommitment(user.ownerPubkey);
  } catch (error) {
    if (error instanceof InvalidCommitmentAccountError) {
      report("invalid_account", "the commitment address holds a foreign account", {
        err: error,
      });
      return skipped("invalid_account");
    }
    metrics?.chainReadFailures.inc({ op: "commitment" });
    log.warn({ err: error }, "commitment read failed: user skipped this sweep (unknown, not zero)");
    return skipped(error instanceof ChainUnavailableError ? "chain_unavailable" : "read_failed");
  }
  if (account && account.authority !== chain.authorityAddress) {
    report("foreign_authority", "commitment account belongs to another authority; not committing", {
      account: account.address,
      authority: account.authority,
    });
    return skipped("foreign_authority");
  }

  let tree: { size: number; root: Hash };
  try {
    tree = await soundTree(deps, user.userId, (reasons) =>
      report("tree_drift", "persisted tree drifted from its leaves; rebuilt", { reasons }),
    );
  } catch (error) {
    if (error instanceof TreeCorruptError) {
      report("log_corrupt", "leaf indices are not contiguous; operator repair needed", {
        reason: error.reason,
      });
      return skipped("log_corrupt");
    }
    log.error({ err: error }, "tree check failed: user skipped this sweep");
    return skipped("tree_unavailable");
  }

  const onChainCount = account ? account.memoryCount : 0;
  if (onChainCount > tree.size) {
    report("shortened_log", "the chain holds more leaves than the local log; not committing", {
      onChainCount,
      localSize: tree.size,
    });
    return skipped("shortened_log");
  }
  if (account && onChainCount > 0) {
    const localRoot = await rootAtSize(db, user.userId, onChainCount);
    if (toHex(localRoot) !== toHex(account.root)) {
      report("root_conflict", "the local log's root at the on-chain size differs; not committing", {
        onChainCount,
        onChainRoot: toHex(account.root),
        localRoot: toHex(localRoot),
      });
      return skipped("root_conflict");
    }
  }
  if (tree.size === 0) {
    return skipped("empty_log");
  }

  return {
    user,
    tree,
    expectedNonce: account ? account.nonce : 0,
    isNew: account === null,
    log,
    report,
  };
}

/** Step 5: records the `submitted` batch of a prepared user. @returns its id. */
async function submit(deps: SweepDeps, p: Prepared): Promise<string> {
  const batch = await insertSubmittedBatch(deps.db, {
    userId: p.user.userId,
    treeSize: p.tree.size,
    root: p.tree.root,
    expectedNonce: p.expectedNonce,
  });
  return batch.id;
}

/**
 * Step 6: the outcome of a prepared user's commit. Confirmed → ONE database transaction (anchored,
 * checkpoint, batch confirmed); unknown → the batch stays submitted; refused → the batch failed.
 */
async function settle(
  deps: SweepDeps,
  p: Prepared,
  batchId: string,
  commit:
    | { readonly result: { signature: string; slot: number; nonce: number } }
    | { readonly error: Error; readonly unknown: boolean },
): Promise<UserOutcome> {
  const { db } = deps;
  const { user, tree, log, report } = p;
  const attempt = { batchId, treeSize: tree.size, expectedNonce: p.expectedNonce };
  if ("error" in commit) {
    const { error } = commit;
    if (commit.unknown) {
      // The transaction may have landed: its outcome is unknown, so the batch stays submitted
      // (stuck) and the next sweep's root subsumes it (docs/protocol.md §4).
      log.warn({ ...attempt, err: error }, "commit outcome unknown; batch left submitted");
      return { userId: user.userId, outcome: "timeout", reason: (error as ChainError).code };
    }
    // Refused by the chain, or failed before reaching it: the batch failed.
    const reason = error instanceof ChainError ? error.code : "send_failed";
    await markBatchFailed(db, user.userId, batchId, `${reason}: ${error.message}`);
    if (error instanceof CountDecreasedError) {
      report("count_decreased", "the chain refused a shortened log (count decreased)", attempt);
    } else if (error instanceof UnauthorizedAuthorityError) {
      report("unauthorized", "the chain refused the authority's signature", attempt);
    } else {
      log.warn({ ...attempt, err: error }, `commit failed (${reason}); batch failed`);
    }
    return { userId: user.userId, outcome: "failed", reason, treeSize: tree.size };
  }
  const { result } = commit;
  await db.transaction(async (tx) => {
    await markAnchored(tx, user.userId, tree.size);
    await insertAnchoredCheckpoint(tx, {
      userId: user.userId,
      treeSize: tree.size,
      root: tree.root,
      nonce: result.nonce,
      signature: result.signature,
      slot: result.slot,
    });
    await markBatchConfirmed(tx, user.userId, batchId, result.signature);
  });
  log.info(
    { ...attempt, nonce: result.nonce, signature: result.signature },
    "anchored the user's root",
  );
  return {
    userId: user.userId,
    outcome: "confirmed",
    treeSize: tree.size,
    nonce: result.nonce,
    signature: result.signature,
  };
}

/**
 * The user's tree size and root, after making sure the persisted tree matches its leaves.
 * Cheap checks first, O(log n) in one repeatable-read snapshot (so a concurrent append cannot look
 * like drift): the tree row exists, its size equals the leaf count, and the node store's root at
 * that size equals the row's root. Only when one fails does the full O(n) checkTree run; a
 * confirmed drift is repaired by rebuildTree (the one O(n) path, docs/protocol.md §5).
 * @throws TreeCorruptError when the leaf indices are not contiguous.
 */
async function soundTree(
  deps: SweepDeps,
  userId: string,
  onDrift: (reasons: string[]) => void,
): Promise<{ size: number; root: Hash }> {
  const { db } = deps;
  const sound = await db.transaction(
    async (tx) => {
      const tree = await getTree(tx, userId);
      if (!tree || tree.size !== (await getLeafCount(tx, userId))) {
        return null;
      }
      try {
        const root = await rootAtSize(tx, userId, tree.size);
        return toHex(root) === toHex(tree.root) ? { size: tree.size, root: tree.root } : null;
      } catch (error) {
        if (error instanceof MissingNodeError) {
          return null;
        }
        throw error;
      }
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  if (sound) {
    return sound;
  }
  const check = await checkTree(db, userId);
  if (!check.drifted && check.persistedSize !== null) {
    return { size: check.size, root: check.recomputedRoot };
  }
  onDrift(check.reasons);
  const rebuilt = await rebuildTree(db, userId);
  deps.metrics?.treeRebuilds.inc();
  return { size: rebuilt.size, root: rebuilt.root };
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results in input order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
