/**
 * `@verifiable-memory/merkle-log` benchmark: CompactRange appends up to 1 000 000 leaves, and inclusion-proof
 * generation / verification at that size against a MemoryNodeStore, each beside the raw
 * node:crypto node-hash rate (`crypto.hash("sha256", 65 B)`) measured in the same run.
 * With leaf hashes precomputed an append costs trailingOnes(size) node hashes, one amortized
 * (n - 1 interior nodes for n leaves), so the append rate is bounded by the node-hash rate of
 * @noble/hashes (also printed); a proof path at 1e6 leaves is 20 hashes.
 * About 30 s and 0.7 GB of memory on a 2-core machine. Source: RFC 9162 §2.1; baselines in docs/performance.md.
 * @module
 */
import { hash as nodeHash, randomBytes, randomInt } from "node:crypto";
import {
  CompactRange,
  type Hash,
  hashChildren,
  inclusionProof,
  MemoryNodeStore,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import { median, printFigures, timeRuns } from "./lib.js";

const LEAVES = 1_000_000;
const PROOF_SAMPLES = 2_000;
const BASELINE_HASHES = 1_000_000;

/** node:crypto one-shot SHA-256 of a 65-byte node preimage, in hashes per second (median of 3). */
async function nodeCryptoNodeHashRate(): Promise<number> {
  const buf = Buffer.alloc(65, 7);
  buf[0] = 1;
  const runs = await timeRuns(() => {
    for (let i = 0; i < BASELINE_HASHES; i++) {
      buf[1] = i & 0xff;
      nodeHash("sha256", buf, "buffer");
    }
  }, 3);
  return BASELINE_HASHES / (median(runs) / 1000);
}

/** hashChildren (@noble/hashes) in hashes per second (median of 3). */
async function hashChildrenRate(): Promise<number> {
  const left = randomBytes(32);
  const right = randomBytes(32);
  const runs = await timeRuns(() => {
    for (let i = 0; i < BASELINE_HASHES; i++) {
      left[0] = i & 0xff;
      hashChildren(left, right);
    }
  }, 3);
  return BASELINE_HASHES / (median(runs) / 1000);
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const flat = randomBytes(LEAVES * 32);
  const leaves: Hash[] = Array.from({ length: LEAVES }, (_, i) =>
    flat.subarray(i * 32, (i + 1) * 32),
  );

  const nodeRate = await nodeCryptoNodeHashRate();
  const nobleRate = await hashChildrenRate();

  // Appends alone: the figure. Best of 2 passes over all leaves.
  const appendRuns = await timeRuns(
    () => {
      const range = CompactRange.empty();
      for (const leaf of leaves) {
        range.append(leaf);
      }
    },
    2,
    0,
  );
  const appendRate = LEAVES / (Math.min(...appendRuns) / 1000);

  // Appends feeding a MemoryNodeStore, which the proofs below read.
  const store = new MemoryNodeStore();
  const range = CompactRange.empty();
  const t0 = process.hrtime.bigint();
  for (const leaf of leaves) {
    store.put(range.append(leaf));
  }
  const storeRate = LEAVES / (Number(process.hrtime.bigint() - t0) / 1e9);
  const root = range.root();

  const indices = Array.from({ length: PROOF_SAMPLES }, () => randomInt(LEAVES));
  const proofs: Hash[][] = [];
  let next = 0;
  const proofRuns = await timeRuns(
    async () => {
      proofs.push(await inclusionProof(indices[next++ % PROOF_SAMPLES] as number, LEAVES, store));
    },
    PROOF_SAMPLES,
    0,
  );
  next = 0;
  const verifyRuns = await timeRuns(
    () => {
      const i = next++ % PROOF_SAMPLES;
      const index = indices[i] as number;
      verifyInclusion(index, LEAVES, leaves[index] as Hash, proofs[i] as Hash[], root);
    },
    PROOF_SAMPLES,
    0,
  );

  const pathHashes = Math.ceil(Math.log2(LEAVES));
  const pathBaselineUs = (pathHashes / nodeRate) * 1e6;
  const baselineName = "node:crypto sha256(65 B) node hashes";
  printFigures(`merkle-log (${LEAVES.toLocaleString("en-US")} leaves)`, [
    {
      name: "hashChildren (@noble/hashes)",
      value: nobleRate,
      baseline: nodeRate,
      unit: "hashes/s",
      baselineName,
      target: "≈ 0.7–1× (noble vs node)",
    },
    {
      name: `CompactRange.append, ${LEAVES.toLocaleString("en-US")} leaves`,
      value: appendRate,
      baseline: nodeRate,
      unit: "ops/s",
      baselineName,
      target: "≈ 0.9× (1 hash/append)",
    },
    {
      name: "append + MemoryNodeStore.put",
      value: storeRate,
      baseline: nodeRate,
      unit: "ops/s",
      baselineName,
    },
    {
      name: `inclusionProof at ${LEAVES.toLocaleString("en-US")}, median of ${PROOF_SAMPLES}`,
      value: median(proofRuns) * 1000,
      baseline: pathBaselineUs,
      unit: "µs",
      baselineName: `${pathHashes} node hashes`,
    },
    {
      name: `verifyInclusion at ${LEAVES.toLocaleString("en-US")}, median of ${PROOF_SAMPLES}`,
      value: median(verifyRuns) * 1000,
      baseline: pathBaselineUs,
      unit: "µs",
      baselineName: `${pathHashes} node hashes`,
      target: "≈ 1.1× (20 noble hashes)",
    },
  ]);
}
