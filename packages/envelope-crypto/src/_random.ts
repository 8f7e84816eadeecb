/**
 * Random byte sources: node:crypto's CSPRNG (OpenSSL RAND_bytes) for keys, and a pooled draw
 * from the same CSPRNG for IVs and other per-record randomness (exported as `pooledRandom`).
 * @module
 */
import { randomBytes, randomFillSync } from "node:crypto";

/** Source of random bytes: `(n) => n random bytes`. Injectable for known-answer tests. */
export type RandomSource = (n: number) => Uint8Array;

/** `n` bytes straight from the CSPRNG, each call its own request (used for data keys). */
export const secureRandom: RandomSource = (n) => new Uint8Array(randomBytes(n));

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

/**
 * `n` CSPRNG bytes taken from a 4 KiB pool refilled with `randomFillSync` (IVs, and per-record
 * secrets such as a memory's commitment salt). A small `randomBytes` call costs 2–10 µs here
 * (as much as sealing a 200-byte record); the pool makes it ~0.1 µs. Each pool byte is copied
 * out once and then zeroed in the pool, so draws stay independent uniform bytes and the pool only
 * ever holds bytes not handed out yet: reading the process's memory later does not recover past
 * draws (and whoever reads it now holds the master key anyway). Keys do not come from the pool
 * ({@link secureRandom}). `n` above 4 096 is drawn directly.
 * @example pooledRandom(16) // Uint8Array(16)
 */
export const pooledRandom: RandomSource = (n) => {
  if (n > POOL_BYTES) {
    return secureRandom(n);
  }
  if (poolOffset + n > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = pool.slice(poolOffset, poolOffset + n);
  pool.fill(0, poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
};
