/**
 * Anchoring benchmark (docs/protocol.md §7.6 "One user's anchoring and the commit batches",
 * §13.5 "The checkpoint log"): what anchoring costs on the local chain (run as its own process, as
 * under `pnpm start`), from each transaction's `getTransaction` meta.fee, in steady state (every
 * account already exists), all paths in the same run:
 * - one transaction per sealed user (USER_ANCHOR_INTERVAL_MS=0, today's default): fee per user
 *   checkpoint;
 * - per-user accounts in `commit_many` batches (USER_ANCHOR_INTERVAL_MS > 0): fee per user;
 * - the checkpoint log: the ONE global transaction per interval divided by the user checkpoints
 *   it anchors;
 * - rent, on its own lines: the lamports a new commitment account and the checkpoint log account
 *   take from the authority (balance drop less the fees), beside the lamports the account holds.
 * Each sweep writes one memory per active user, anchors every user (alternately one transaction
 * each and commit_many), then anchors the checkpoint log. Then the checkpoint-log sweep alone:
 * BENCH_ANCHOR_LOG_USERS (default 10 000) user checkpoints recorded in bulk (per-user accounts
 * left out), and the time to append and sign them (appendUserCheckpoints) plus the time of the
 * step that then checks the account and sends the global transaction (anchorCheckpointLog), per
 * sweep as the log grows, beside the bare hashing and signing of the
 * same entries (no database, no chain). Sizes: BENCH_ANCHOR_USERS (default 1000),
 * BENCH_ANCHOR_SWEEPS (default 3 per path), BENCH_ANCHOR_LOG_USERS. Database: DATABASE_URL's
 * server when set, else an embedded PostgreSQL in a temporary directory; a fresh database is
 * created and dropped. Worst figures are printed (highest fee, longest sweep).
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogKey } from "@verifiable-memory/app-config";
import { createDatabase, migrateDatabase, upsertUserByPubkey } from "@verifiable-memory/db-schema";
import { requestAirdrop } from "@verifiable-memory/litesvm-rpc";
import { hashLeaf } from "@verifiable-memory/merkle-log";
import {
  formatCheckpoint,
  signerFromSeed,
  signNote,
  userLogOrigin,
} from "@verifiable-memory/signed-note";
import bs58 from "bs58";
import {
  anchorCheckpointLog,
  appendUserCheckpoints,
} from "../apps/anchor-service/src/checkpoint-log.js";
// Relative imports: the root package does not depend on these workspace packages.
import { createMetrics, runSweep, type SweepReport } from "../apps/anchor-service/src/index.js";
import { ChainClient, loadKeypairFile } from "../packages/chain-commit/src/index.js";
import { LOCAL_PROGRAM_ID } from "../programs/commitment/src/index.js";
import { writeSolanaKeypairFile } from "../scripts/lib/first-run.js";
import {
  accountLamports,
  bulkCheckpoints,
  bulkUsers,
  feesOf,
  localChain,
  seed,
  server,
  silent,
} from "./anchor-setup.js";
import { type Figure, printFigures } from "./lib.js";

const USERS = Number(process.env.BENCH_ANCHOR_USERS ?? 1000);
const SWEEPS = Number(process.env.BENCH_ANCHOR_SWEEPS ?? 3);
const LOG_USERS = Number(process.env.BENCH_ANCHOR_LOG_USERS ?? 10_000);
const MEMORIES_PER_USER = 3;
const MAX_IN_FLIGHT = 8;
const ORIGIN = "bench.example/tlog";
/** Targets: 1 % of one 5 000-lamport signature per user checkpoint at 1 000 users; 30 s. */
const LOG_FEE_TARGET = 50;
const LOG_FEE_TARGET_USERS = 1000;
const LOG_SWEEP_TARGET_S = 30;

const verdict = (met: boolean) => (met ? "met" : "missed");
const worst = (values: readonly number[]) => Math.max(...values);
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fmtList = (values: readonly number[], digits: number) =>
  values.map((v) => v.toFixed(digits)).join(", ");

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-anchor-"));
  const pg = await server(dir);
  const name = `svc_bench_anchor_${randomBytes(4).toString("hex")}`;
  const admin = createDatabase({ url: pg.adminUrl, max: 1 });
  await admin.sql.unsafe(`create database "${name}"`);
  const url = new URL(pg.adminUrl);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  const handle = createDatabase({ url: url.toString(), max: MAX_IN_FLIGHT + 2 });
  const chain = await localChain(dir);
  try {
    const keypairPath = join(dir, "authority.json");
    await writeSolanaKeypairFile(keypairPath);
    const authority = loadKeypairFile(keypairPath);
    await requestAirdrop(chain.url, authority.publicKey.toBase58(), 1_000 * 1e9);
    const client = new ChainClient({ rpcUrl: chain.url, programId: LOCAL_PROGRAM_ID, authority });
    while ((await client.authorityBalance()) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const signer = signerFromSeed(ORIGIN, randomBytes(32));
    const logKey: LogKey = { origin: ORIGIN, signer, verifiers: [signer] };
    const metrics = createMetrics({ db: handle.db, intervalMs: 30_000 });
    const db = handle.db;

    const users = [];
    for (let i = 0; i < USERS; i++) {
      const { user } = await upsertUserByPubkey(db, {
        ownerPubkey: bs58.encode(randomBytes(32)),
        makeWrappedKey: () => randomBytes(60),
      });
      users.push(user);
    }
    await seed(db, users, MEMORIES_PER_USER);

    /** One sweep over every user: interval 0 = one transaction each, else commit_many. */
    const sweep = async (userAnchorIntervalMs: number) => {
      const report: SweepReport = await runSweep({
        db,
        chain: client,
        logger: silent,
        config: {
          sealMaxPending: 256,
          sealMaxAgeMs: 0,
          maxInFlight: MAX_IN_FLIGHT,
          userAnchorIntervalMs,
        },
        userAnchorState: { lastAt: null },
      });
      const signatures = report.outcomes.flatMap((o) => (o.signature ? [o.signature] : []));
      if (report.committed !== USERS || signatures.length !== USERS) {
        throw new Error(`sweep committed ${report.committed} of ${USERS} users`);
      }
      return { ...(await feesOf(client, signatures)), durationMs: report.durationMs };
    };
    /** One checkpoint-log step; it must anchor `expected` new entries. */
    const logStep = async (expected: number) => {
      const t0 = performance.now();
      const outcome = await anchorCheckpointLog({
        db,
        logKey,
        chain: client,
        logger: silent,
        metrics,
      });
      const seconds = (performance.now() - t0) / 1000;
      if (outcome.outcome !== "anchored" || outcome.appended !== expected) {
        throw new Error(`checkpoint log: ${JSON.stringify(outcome)}, expected ${expected} entries`);
      }
      const fee = (await feesOf(client, [outcome.signature])).lamports;
      return { fee, perCheckpoint: fee / Math.max(expected, 1), seconds, size: outcome.size };
    };

    // Account creation: every user's first anchor (one transaction each), then the log's first.
    let balance = await client.authorityBalance();
    const created = await sweep(0);
    let after = await client.authorityBalance();
    const userRent = (balance - after - created.lamports) / USERS;
    const firstOwner = users[0]?.ownerPubkey as string;
    const userAccount = await accountLamports(
      chain.url,
      (await client.readCommitment(firstOwner))?.address as string,
    );
    balance = after;
    const logCreated = await logStep(USERS);
    after = await client.authorityBalance();
    const logRent = balance - after - logCreated.fee;
    const logAccount = await accountLamports(
      chain.url,
      (await client.readCheckpointLog())?.address as string,
    );

    // Steady state: one more memory per user, anchored by each path in turn, then the log.
    const perUser: number[] = [];
    const many: number[] = [];
    const manyTxs: number[] = [];
    const logFees: number[] = [];
    const durations = { perUser: [] as number[], many: [] as number[] };
    for (let s = 0; s < SWEEPS; s++) {
      await seed(db, users, 1);
      const single = await sweep(0);
      perUser.push(single.lamports / USERS);
      durations.perUser.push(single.durationMs / 1000);
      logFees.push((await logStep(USERS)).perCheckpoint);
      await seed(db, users, 1);
      const batched = await sweep(1);
      many.push(batched.lamports / USERS);
      manyTxs.push(batched.transactions);
      durations.many.push(batched.durationMs / 1000);
      logFees.push((await logStep(USERS)).perCheckpoint);
    }

    // The checkpoint-log sweep alone at LOG_USERS user checkpoints per interval.
    const logUsers = await bulkUsers(handle.sql, LOG_USERS);
    const owners = logUsers.map(() => bs58.encode(randomBytes(32)));
    const t0 = performance.now();
    const texts = owners.map((owner) =>
      formatCheckpoint({
        origin: userLogOrigin(ORIGIN, owner),
        size: 1,
        rootHash: randomBytes(32),
        extensions: [],
      }),
    );
    const encoder = new TextEncoder();
    const leafHashes = texts.map((text) => hashLeaf(encoder.encode(text)));
    signNote(
      formatCheckpoint({
        origin: ORIGIN,
        size: LOG_USERS,
        rootHash: leafHashes[0] as Uint8Array,
        extensions: [],
      }),
      [signer],
    );
    const floorSeconds = (performance.now() - t0) / 1000;
    const logSweeps: {
      seconds: number;
      append: number;
      before: number;
      perCheckpoint: number;
    }[] = [];
    let size = (await client.readCheckpointLog())?.size ?? 0;
    for (let s = 1; s <= SWEEPS; s++) {
      await bulkCheckpoints(handle.sql, logUsers, s);
      // Append + sign first, timed on its own; then the step finds nothing new and anchors.
      const t1 = performance.now();
      const appended = await appendUserCheckpoints(db, logKey);
      const append = (performance.now() - t1) / 1000;
      if (appended?.appended !== LOG_USERS) {
        throw new Error(`appended ${appended?.appended ?? 0} of ${LOG_USERS} user checkpoints`);
      }
      const step = await logStep(0);
      logSweeps.push({
        seconds: append + step.seconds,
        append,
        before: size,
        perCheckpoint: step.fee / LOG_USERS,
      });
      size = step.size;
    }

    const baseline = mean(perUser);
    const single = "one tx per user (USER_ANCHOR_INTERVAL_MS=0)";
    const logWorst = worst(logFees);
    const atTarget = USERS === LOG_FEE_TARGET_USERS ? "" : ` (measured at ${USERS} users)`;
    const sweepWorst = worst(logSweeps.map((s) => s.seconds));
    const figures: Figure[] = [
      {
        name: `checkpoint log: fee per user checkpoint, ${USERS} users/interval (worst of ${logFees.length}: ${fmtList(logFees, 2)})`,
        value: logWorst,
        baseline,
        unit: "lamports",
        baselineName: single,
        target: `≤ ${LOG_FEE_TARGET} at ${LOG_FEE_TARGET_USERS} users: ${verdict(logWorst <= LOG_FEE_TARGET)}${atTarget}`,
      },
      {
        name: `per-user accounts, commit_many: fee per user (worst of ${SWEEPS}; ${manyTxs.join("/")} txs for ${USERS} users)`,
        value: worst(many),
        baseline,
        unit: "lamports",
        baselineName: single,
      },
      {
        name: `${single}: fee per user checkpoint (worst of ${SWEEPS})`,
        value: worst(perUser),
        baseline: created.lamports / USERS,
        unit: "lamports",
        baselineName: "first anchor (initialize + commit), fee per user",
      },
      {
        name: "rent: one commitment account (balance drop less fees, per new user)",
        value: userRent,
        baseline: userAccount,
        unit: "lamports",
        baselineName: "lamports the account holds",
      },
      {
        name: "rent: the checkpoint log account (once)",
        value: logRent,
        baseline: logAccount,
        unit: "lamports",
        baselineName: "lamports the account holds",
      },
      {
        name: `steady sweep, ${USERS} users, commit_many: duration (worst of ${SWEEPS})`,
        value: worst(durations.many),
        baseline: worst(durations.perUser),
        unit: "s",
        baselineName: `${single}, worst`,
      },
      ...logSweeps.map((s, i) => ({
        name: `checkpoint-log sweep ${i + 1}, ${LOG_USERS} user checkpoints, log at ${s.before}: append + sign ${s.append.toFixed(2)} s, account check + global tx ${(s.seconds - s.append).toFixed(2)} s`,
        value: s.seconds,
        baseline: floorSeconds,
        unit: "s",
        baselineName: `hash ${LOG_USERS} entries + sign (no db, no chain)`,
        target: `≤ ${LOG_SWEEP_TARGET_S} s: ${verdict(s.seconds <= LOG_SWEEP_TARGET_S)}`,
      })),
      {
        name: `checkpoint-log sweep, ${LOG_USERS} user checkpoints: worst of ${SWEEPS}`,
        value: sweepWorst,
        baseline: floorSeconds,
        unit: "s",
        baselineName: `hash ${LOG_USERS} entries + sign (no db, no chain)`,
        target: `≤ ${LOG_SWEEP_TARGET_S} s: ${verdict(sweepWorst <= LOG_SWEEP_TARGET_S)}`,
      },
      {
        name: `checkpoint log: fee per user checkpoint at ${LOG_USERS} users/interval (worst)`,
        value: worst(logSweeps.map((s) => s.perCheckpoint)),
        baseline,
        unit: "lamports",
        baselineName: single,
      },
    ];
    printFigures(
      `anchoring costs (${USERS} users, ${SWEEPS} sweeps per path in steady state, local chain; fees from getTransaction meta.fee)`,
      figures,
    );
  } finally {
    await chain.close();
    await handle.close();
    await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
