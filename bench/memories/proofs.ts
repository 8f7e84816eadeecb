/**
 * The proof figures of the memories bench: GET /memories/:id/proof over HTTP and inclusionProof
 * over nodeSource in-process, at 100 000 and 1 000 000 leaves (BENCH_BIG_TREE, a tree built in
 * SQL around 32 real memories), beside one SELECT by primary key.
 * @module
 */
import { randomInt, randomUUID } from "node:crypto";
import {
  type DatabaseHandle,
  memories,
  nodeSource,
  rootAtSize,
} from "@verifiable-memory/db-schema";
import { memoryLeaf, newSalt, sealMemoryBody } from "@verifiable-memory/memory";
import {
  fromHex,
  inclusionProof,
  rootFromInclusionProof,
  toHex,
} from "@verifiable-memory/merkle-log";
import { type Figure, percentile } from "../lib.js";
import { drive, interleave, type Load } from "../sign-in.bench.js";
import { anchorAt, type BenchUser, memoryText } from "./common.js";

/** Proofs asked per side and round. */
const PROOFS = 300;
/** Real memories placed in the big tree. */
const BIG_TREE_MEMORIES = 32;

/** Proof figures of one user's memories: HTTP route and in-process path, beside a PK SELECT. */
export async function proofFigures(
  pg: DatabaseHandle,
  apiUrl: string,
  user: BenchUser,
  ids: readonly string[],
  size: number,
): Promise<Figure[]> {
  const pick = () => ids[randomInt(ids.length)] as string;
  const proofOnce = async () => {
    const res = await fetch(`${apiUrl}/memories/${pick()}/proof`, { headers: user.headers });
    const bundle = (await res.json()) as {
      leafIndex: number;
      leafHash: string;
      checkpoint: { treeSize: number; rootHash: string } | null;
      inclusionProof: string[] | null;
    };
    if (res.status !== 200 || !bundle.checkpoint || !bundle.inclusionProof) {
      throw new Error(`proof: ${res.status}, anchored checkpoint missing`);
    }
    return bundle;
  };
  // The proof checks out against the checkpoint root, as a third party would check it.
  const sample = await proofOnce();
  const root = rootFromInclusionProof(
    sample.leafIndex,
    size,
    fromHex(sample.leafHash),
    (sample.inclusionProof ?? []).map(fromHex),
  );
  if (toHex(root) !== sample.checkpoint?.rootHash) {
    throw new Error(`the proof at ${size} leaves does not verify`);
  }
  const leafIndexes = await pg.sql<{ id: string; leaf_index: string }[]>`
    select id, leaf_index from memories where user_id = ${user.userId}`;
  const source = nodeSource(pg.db, user.userId);
  const loads = await interleave(
    {
      select: () => drive(() => pg.sql`select * from memories where id = ${pick()}`, PROOFS, 1),
      http: () => drive(proofOnce, PROOFS, 1),
      path: () =>
        drive(
          () => {
            const row = leafIndexes[randomInt(leafIndexes.length)];
            return inclusionProof(Number(row?.leaf_index), size, source);
          },
          PROOFS,
          1,
        ),
    },
    3,
  );
  const p50 = (load: Load | undefined) => percentile(load?.latencies ?? [Number.NaN], 50);
  const n = size.toLocaleString("en-US");
  const selectName = "one SELECT by primary key (postgres.js)";
  return [
    {
      name: `proof p50, GET /memories/:id/proof (HTTP), ${n} leaves`,
      value: p50(loads.http),
      baseline: p50(loads.select),
      unit: "ms",
      baselineName: selectName,
      target: "≤ 3×",
    },
    {
      name: `proof p50, inclusionProof over nodeSource, ${n} leaves`,
      value: p50(loads.path),
      baseline: p50(loads.select),
      unit: "ms",
      baselineName: selectName,
      target: "≤ 3×",
    },
  ];
}

/**
 * A `size`-leaf tree for `user`, built in the node-hash store with SQL: BIG_TREE_MEMORIES real
 * memories (sealed bodies, real leaves, memory rows) at random leaf indices, synthetic leaf
 * hashes SHA-256(0x00 ‖ int8(i)) elsewhere, then each level's perfect subtrees
 * SHA-256(0x01 ‖ left ‖ right) from the one below; checkpointed at `size`. Only the real
 * memories have rows (the proof path reads the row, the checkpoint and the nodes; no trees row).
 * @returns the real memories' ids.
 */
export async function seedBigTree(
  pg: DatabaseHandle,
  user: BenchUser,
  size: number,
): Promise<string[]> {
  const indexes = new Set<number>([size - 1]);
  while (indexes.size < BIG_TREE_MEMORIES) {
    indexes.add(randomInt(size));
  }
  const createdAt = new Date();
  const rows = [...indexes].map((leafIndex) => {
    const id = randomUUID();
    const body = { salt: newSalt(), content: memoryText(leafIndex) };
    const fields = { memoryId: id, owner: user.ownerPubkey, createdAt, metadata: {} };
    const sealed = sealMemoryBody(user.dataKey, body, { userId: user.userId, memoryId: id });
    const { leafHash } = memoryLeaf(fields, body);
    return { id, userId: user.userId, leafIndex, ...sealed, leafHash, metadata: {}, createdAt };
  });
  await pg.db.insert(memories).values(rows);
  const sql = pg.sql;
  const realIndexes = `{${rows.map((r) => r.leafIndex).join(",")}}`;
  const realHashes = `{${rows.map((r) => toHex(r.leafHash)).join(",")}}`;
  await sql`
    insert into merkle_nodes (user_id, level, idx, hash)
    select ${user.userId}, 0, i, coalesce(decode(r.hex, 'hex'), sha256(decode('00', 'hex') || int8send(i)))
    from generate_series(0, ${size - 1}::bigint) as i
    left join unnest(${realIndexes}::bigint[], ${realHashes}::text[]) as r(idx, hex) on r.idx = i`;
  for (let level = 0; 2 ** (level + 1) <= size; level++) {
    await sql`
      insert into merkle_nodes (user_id, level, idx, hash)
      select ${user.userId}, ${level + 1}, idx / 2,
        sha256(decode('01', 'hex') || string_agg(hash, ''::bytea order by idx))
      from merkle_nodes where user_id = ${user.userId} and level = ${level}
      group by idx / 2 having count(*) = 2`;
  }
  await sql`analyze merkle_nodes`;
  await anchorAt(pg.db, user.userId, size, await rootAtSize(pg.db, user.userId, size));
  return rows.map((r) => r.id);
}
