/**
 * What the anchoring benchmark (bench/anchor.bench.ts) stands on: the local chain as its own
 * process, a PostgreSQL server, seeding (memories through appendMemories; users and anchored
 * checkpoints in bulk for the checkpoint-log sweep), and reading what the chain charged: each
 * transaction's fee from `getTransaction` (meta.fee) and an account's lamports.
 * @module
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { appendMemories, type Database, type DatabaseHandle } from "@verifiable-memory/db-schema";
import { hashLeaf } from "@verifiable-memory/merkle-log";
import { startEmbeddedPostgres } from "@verifiable-memory/runtime";
import bs58 from "bs58";
import type { runSweep } from "../apps/anchor-service/src/index.js";
import type { ChainClient } from "../packages/chain-commit/src/index.js";
import { LOCAL_PROGRAM_ID } from "../programs/commitment/src/index.js";

/** Starts apps/local-chain/src/main.ts as a child process on a free port pair. */
export async function localChain(
  dataDir: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/local-chain/src/main.ts"], {
    env: {
      ...process.env,
      LOCAL_CHAIN_PORT: "0",
      DATA_DIR: dataDir,
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /JSON-RPC (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`local chain exited (${code}): ${out}`)));
  });
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A PostgreSQL server URL for the bench (DATABASE_URL's, else an embedded one) and how to stop it. */
export async function server(dir: string): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    return { adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  }
  const dataDir = join(dir, "pg");
  await chmod(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir, port: 0 });
  return { adminUrl: pg.url, stop: () => pg.stop() };
}

/** A pino-shaped logger that drops everything. */
export const silent = {
  level: "silent",
  child: () => silent,
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
} as unknown as Parameters<typeof runSweep>[0]["logger"];

/** Appends `perUser` random memories to each owner's log through appendMemories. */
export async function seed(
  db: Database,
  owners: readonly { id: string }[],
  perUser: number,
): Promise<void> {
  for (const owner of owners) {
    await appendMemories(
      db,
      owner.id,
      Array.from({ length: perUser }, () => ({
        id: randomUUID(),
        ciphertext: randomBytes(64),
        iv: randomBytes(12),
        leafHash: hashLeaf(randomBytes(48)),
        metadata: {},
        createdAt: new Date(),
      })),
    );
  }
}

/** Inserts `count` users (random wallet keys) in one statement. @returns their ids. */
export async function bulkUsers(sql: DatabaseHandle["sql"], count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const owners = ids.map(() => bs58.encode(randomBytes(32)));
  await sql`insert into users (id, owner_pubkey, wrapped_data_key)
    select id, owner, '\\x00'::bytea from unnest(${ids}::text[], ${owners}::text[]) as u(id, owner)`;
  return ids;
}

/**
 * Records one anchored checkpoint of size `treeSize` (random root) per user in one statement, as
 * the per-user anchoring would (which the checkpoint-log timing leaves out).
 */
export async function bulkCheckpoints(
  sql: DatabaseHandle["sql"],
  userIds: readonly string[],
  treeSize: number,
): Promise<void> {
  const roots = userIds.map(() => `\\x${randomBytes(32).toString("hex")}`);
  await sql`insert into anchored_checkpoints (user_id, tree_size, root, nonce, signature)
    select id, ${treeSize}, root::bytea, ${treeSize}, 'bench'
    from unnest(${userIds as string[]}::text[], ${roots}::text[]) as c(id, root)`;
}

/**
 * The fees (`getTransaction` meta.fee, lamports) of the distinct transactions in `signatures`,
 * eight lookups at a time.
 * @returns their sum and the number of distinct transactions.
 * @throws Error when the node does not know one of them.
 */
export async function feesOf(
  client: ChainClient,
  signatures: readonly string[],
): Promise<{ lamports: number; transactions: number }> {
  const distinct = [...new Set(signatures)];
  let lamports = 0;
  let next = 0;
  const lane = async () => {
    while (next < distinct.length) {
      const signature = distinct[next++] as string;
      const tx = await client.getTransaction(signature);
      if (!tx) {
        throw new Error(`transaction ${signature} not found`);
      }
      lamports += tx.fee;
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return { lamports, transactions: distinct.length };
}

/** The lamports held by `address` (JSON-RPC getAccountInfo), 0 when it does not exist. */
export async function accountLamports(rpcUrl: string, address: string): Promise<number> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getAccountInfo",
      params: [address, { encoding: "base64", commitment: "confirmed" }],
    }),
  });
  const body = (await response.json()) as { result?: { value: { lamports: number } | null } };
  return body.result?.value?.lamports ?? 0;
}
