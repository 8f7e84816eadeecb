/**
 * The recall cache's exhaustive vector search (docs/protocol.md §4.5 "Recall"): `BENCH_VECTORS`
 * (default 100 000) random 384-dimension vectors held int8-quantised in a VectorStore, one query
 * scored against every one by the WebAssembly SIMD scan and the best 10 kept (BestList), as a
 * semantic search does. Baseline in the same run: the same search over the float32 vectors in a
 * plain JavaScript loop (cosine of pre-normalised vectors, the same top 10). Also the agreement of
 * the two top 10s (the quantisation's cost in ranking).
 * @module
 */
import { BestList, VectorStore } from "@verifiable-memory/memory";
import { type Figure, median, printFigures, timeRuns } from "./lib.js";

const COUNT = Number(process.env.BENCH_VECTORS ?? 100_000);
const DIMENSIONS = 384;
const REPS = 31;

/** Deterministic uniform values in [-1, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return (((x ^ (x >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  console.log(`\n## vector search: ${COUNT} random ${DIMENSIONS}-dimension vectors`);
  const next = random(42);
  const flat = new Float32Array(COUNT * DIMENSIONS);
  const store = new VectorStore("bench", DIMENSIONS);
  const vector = new Float32Array(DIMENSIONS);
  for (let v = 0; v < COUNT; v++) {
    let norm = 0;
    for (let i = 0; i < DIMENSIONS; i++) {
      const x = next();
      vector[i] = x;
      norm += x * x;
    }
    const inverse = 1 / Math.sqrt(norm);
    for (let i = 0; i < DIMENSIONS; i++) {
      flat[v * DIMENSIONS + i] = (vector[i] as number) * inverse;
    }
    store.add(v, vector);
  }
  const queries = Array.from({ length: 8 }, () =>
    Float32Array.from({ length: DIMENSIONS }, () => next()),
  );
  let q = 0;
  const identity = (position: number) => position;
  const accept = () => true;
  const quantised = (query: Float32Array) => {
    const best = new BestList(10, identity, accept);
    store.scan(query, (position, score) => best.offer(position, score));
    return best.positions;
  };
  const exact = (query: Float32Array) => {
    let norm = 0;
    for (const x of query) {
      norm += x * x;
    }
    const inverse = 1 / Math.sqrt(norm);
    const best = new BestList(10, identity, accept);
    for (let v = 0, o = 0; v < COUNT; v++, o += DIMENSIONS) {
      let dot = 0;
      for (let i = 0; i < DIMENSIONS; i++) {
        dot += (flat[o + i] as number) * (query[i] as number);
      }
      best.offer(v, dot * inverse);
    }
    return best.positions;
  };
  const ours = await timeRuns(
    () => quantised(queries[q++ % queries.length] as Float32Array),
    REPS,
    3,
  );
  const baseline = await timeRuns(
    () => exact(queries[q++ % queries.length] as Float32Array),
    REPS,
    3,
  );
  let agree = 0;
  for (const query of queries) {
    const a = new Set(quantised(query));
    agree += exact(query).filter((position) => a.has(position)).length;
  }
  console.log(
    `int8 store: ${(store.bytes / 2 ** 20).toFixed(1)} MiB (float32: ${((COUNT * DIMENSIONS * 4) / 2 ** 20).toFixed(1)} MiB); top-10 overlap with exact float32 cosine: ${((agree / (queries.length * 10)) * 100).toFixed(0)}%`,
  );
  const figures: Figure[] = [
    {
      name: `search p50, ${COUNT} x ${DIMENSIONS} (int8, WebAssembly SIMD, top 10)`,
      value: median(ours),
      baseline: median(baseline),
      unit: "ms",
      baselineName: "float32 JavaScript scan",
      target: "≤ 25 ms absolute (at 100 000)",
    },
  ];
  printFigures("vector search: targets", figures);
}
