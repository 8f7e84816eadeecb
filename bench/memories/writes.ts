/**
 * The write figures of the memories bench: POST /memories to core-api run as its own process
 * (src/main.ts, as in production) from 16 clients with one keep-alive connection each, one user
 * and 16 users, and POST /memories/batch (4 clients × 64 items), beside raw postgres.js INSERTs
 * into a plain table of the same columns; also the write path without HTTP, an empty hono route
 * in its own process as the HTTP reference, and (Linux) the CPU per write of every side.
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import { createDatabase } from "@verifiable-memory/db-schema";
import { AppendQueue, MemoryService, RecallCache } from "@verifiable-memory/memory";
import type { Figure } from "../lib.js";
import {
  HttpClients,
  postgresCpuSeconds,
  processCpuSeconds,
  startServerProcess,
} from "../processes.js";
import { BENCH_ENV, drive, interleave, type Load } from "../sign-in.bench.js";
import { type BenchUser, CLIENTS, memoryText } from "./common.js";

/** Writes per case and round. */
const WRITES = Number(process.env.BENCH_WRITES ?? 1_000);
/** Items per POST /memories/batch in the batch-write figure, and its concurrent clients. */
const BATCH_ITEMS = 64;
const BATCH_CLIENTS = 4;

/** CPU seconds used by every side (server process, PostgreSQL, this process) over some loads. */
class CpuTally {
  seconds = 0;
  operations = 0;

  /** CPU µs per operation so far. */
  perOperation(): number {
    return (this.seconds / this.operations) * 1e6;
  }
}

/**
 * Runs `load` (`operations` operations) and adds the CPU that `serverPid` (0: none), PostgreSQL
 * and this process used meanwhile to `tally`.
 */
async function costed(
  tally: CpuTally,
  serverPid: number,
  operations: number,
  load: () => Promise<Load>,
): Promise<Load> {
  const sample = async () =>
    (serverPid ? await processCpuSeconds(serverPid) : 0) +
    (await postgresCpuSeconds()) +
    (await processCpuSeconds(process.pid));
  const before = await sample();
  const result = await load();
  tally.seconds += (await sample()) - before;
  tally.operations += operations;
  return result;
}

/**
 * Write figures: POST /memories with CLIENTS clients (one keep-alive connection each), one user
 * and CLIENTS users, against core-api run as its own process (src/main.ts, as in production);
 * raw INSERTs; the same POST body against an empty hono route in its own process; and the write
 * path without HTTP (MemoryService in this process). On Linux the CPU each side used is
 * accounted too (core-api, PostgreSQL, the bench process).
 */
export async function writeFigures(
  databaseUrl: string,
  one: BenchUser,
  many: readonly BenchUser[],
): Promise<Figure[]> {
  const raw = createDatabase({ url: databaseUrl, max: CLIENTS });
  // The write path without HTTP: core-api's MemoryService (envelope, leaf, group commit).
  const direct = createDatabase({ url: databaseUrl, max: CLIENTS });
  const service = new MemoryService({
    db: direct.db,
    clock: systemClock,
    appendQueue: new AppendQueue(direct.db),
    recall: new RecallCache({ db: direct.db, clock: systemClock, maxBytes: 0 }),
  });
  const create = (user: BenchUser | undefined) => {
    if (!user) {
      throw new Error("no bench user");
    }
    return service.create(user, user.dataKey, { content: memoryText(1), metadata: {} });
  };
  const api = await startServerProcess("apps/core-api/src/main.ts", {
    ...BENCH_ENV,
    DATABASE_URL: databaseUrl,
  });
  const empty = await startServerProcess("bench/empty-route-server.ts", {});
  const apiClients = new HttpClients(api.url, CLIENTS);
  const emptyClients = new HttpClients(empty.url, CLIENTS);
  try {
    await raw.sql`
      create table bench_plain_writes (
        id text primary key, user_id text not null, leaf_index bigint not null,
        ciphertext bytea, iv bytea, leaf_hash bytea not null, metadata jsonb not null,
        created_at timestamptz(3) not null, unique (user_id, leaf_index))`;
    let leafIndex = 0;
    const rawInsert = (client: number) =>
      raw.sql`insert into bench_plain_writes values (
        ${randomUUID()}, ${`user-${client}`}, ${leafIndex++}, ${randomBytes(233)},
        ${randomBytes(12)}, ${randomBytes(32)}, ${"{}"}::jsonb, ${new Date().toISOString()})`;
    const write = async (client: number, user: BenchUser | undefined) => {
      const status = await apiClients.postJson(
        client,
        "/memories",
        { content: memoryText(1) },
        user?.headers,
      );
      if (status !== 201) {
        throw new Error(`POST /memories: ${status}`);
      }
    };
    const batchItems = () =>
      Array.from({ length: BATCH_ITEMS }, () => ({ content: memoryText(1) }));
    const batchWrite = async (client: number) => {
      const status = await apiClients.postJson(
        client,
        "/memories/batch",
        { items: batchItems() },
        many[client]?.headers,
      );
      if (status !== 201) {
        throw new Error(`POST /memories/batch: ${status}`);
      }
    };
    const rawMultiInsert = (client: number) => {
      const rows = Array.from({ length: BATCH_ITEMS }, () => ({
        id: randomUUID(),
        user_id: `user-${client}`,
        leaf_index: leafIndex++,
        ciphertext: randomBytes(233),
        iv: randomBytes(12),
        leaf_hash: randomBytes(32),
        metadata: "{}",
        created_at: new Date().toISOString(),
      }));
      return raw.sql`insert into bench_plain_writes ${raw.sql(rows)}`;
    };
    const emptyPost = async (client: number) => {
      const status = await emptyClients.postJson(client, "/empty", { content: memoryText(1) });
      if (status !== 204) {
        throw new Error(`POST /empty: ${status}`);
      }
    };
    const linux = process.platform === "linux";
    const rawCpu = new CpuTally();
    const oneCpu = new CpuTally();
    const cost = (tally: CpuTally, pid: number, load: () => Promise<Load>) =>
      linux ? costed(tally, pid, WRITES, load) : load();
    const loads = await interleave(
      {
        raw: () => cost(rawCpu, 0, () => drive(rawInsert, WRITES, CLIENTS)),
        empty: () => drive(emptyPost, WRITES, CLIENTS),
        directOne: () => drive(() => create(one), WRITES, CLIENTS),
        directMany: () => drive((client) => create(many[client]), WRITES, CLIENTS),
        one: () =>
          cost(oneCpu, api.pid, () => drive((client) => write(client, one), WRITES, CLIENTS)),
        many: () => drive((client) => write(client, many[client]), WRITES, CLIENTS),
        batch: () => drive(batchWrite, Math.ceil((4 * WRITES) / BATCH_ITEMS), BATCH_CLIENTS),
        rawMulti: () => drive(rawMultiInsert, Math.ceil((4 * WRITES) / BATCH_ITEMS), BATCH_CLIENTS),
      },
      3,
    );
    const rawName = `raw postgres.js single-row INSERT, ${CLIENTS} in flight`;
    const figures: Figure[] = [
      {
        name: `writes, POST /memories, ${CLIENTS} clients, 1 user`,
        value: loads.one?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
        target: "≥ 0.3×",
      },
      {
        name: `writes, POST /memories, ${CLIENTS} clients, ${CLIENTS} users`,
        value: loads.many?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
        target: "≥ 0.3×",
      },
      {
        name: `batch writes, POST /memories/batch, ${BATCH_CLIENTS} clients × ${BATCH_ITEMS} items (${BATCH_CLIENTS} users)`,
        value: (loads.batch?.rate ?? Number.NaN) * BATCH_ITEMS,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "memories/s",
        baselineName: rawName,
        target: "≥ 1.0×",
      },
      {
        name: "batch writes beside raw multi-row INSERTs of the same rows",
        value: (loads.batch?.rate ?? Number.NaN) * BATCH_ITEMS,
        baseline: (loads.rawMulti?.rate ?? Number.NaN) * BATCH_ITEMS,
        unit: "memories/s",
        baselineName: `raw postgres.js ${BATCH_ITEMS}-row INSERT, ${BATCH_CLIENTS} in flight`,
      },
      {
        name: `write path without HTTP (MemoryService.create), ${CLIENTS} in flight, 1 user`,
        value: loads.directOne?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
      },
      {
        name: `write path without HTTP (MemoryService.create), ${CLIENTS} in flight, ${CLIENTS} users`,
        value: loads.directMany?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
      },
      {
        name: `reference: empty hono route (own process), same POST body, ${CLIENTS} clients`,
        value: loads.empty?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "requests/s",
        baselineName: rawName,
      },
    ];
    if (linux) {
      figures.push({
        name: "CPU per write over HTTP, 1 user: core-api + PostgreSQL + bench client",
        value: oneCpu.perOperation(),
        baseline: rawCpu.perOperation(),
        unit: "µs",
        baselineName: "raw INSERT: PostgreSQL + bench client",
      });
    }
    return figures;
  } finally {
    await apiClients.close();
    await emptyClients.close();
    await api.stop();
    await empty.stop();
    await direct.close();
    await raw.close();
  }
}
