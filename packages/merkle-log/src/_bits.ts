/**
 * Bit arithmetic on tree sizes and node indices held as JS numbers (exact up to 2^53 - 1).
 * JS bitwise operators truncate to 32 bits, so these helpers split a value into its high and
 * low 32-bit halves. Internal module, not part of the public barrel.
 * @module
 */

const TWO_32 = 2 ** 32;

/** Number of set bits in a 32-bit unsigned value. */
function popcount32(v: number): number {
  let x = v - ((v >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Number of trailing zero bits of a non-zero 32-bit value. */
function ctz32(v: number): number {
  return 31 - Math.clz32(v & -v);
}

/** True when `value` is an integer in [0, 2^53 - 1]. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * Throws a RangeError naming `name` unless `value` is an integer in [0, 2^53 - 1].
 * Used for programmer-supplied sizes, indices and levels.
 */
export function assertCount(value: unknown, name: string): asserts value is number {
  if (!isCount(value)) {
    throw new RangeError(`${name} must be an integer in [0, 2^53 - 1], got ${String(value)}`);
  }
}

/** Number of bits needed to write `x` (0 for 0): floor(log2 x) + 1. */
export function bitLength(x: number): number {
  const hi = Math.floor(x / TWO_32);
  return hi === 0 ? 32 - Math.clz32(x) : 64 - Math.clz32(hi);
}

/** Number of set bits of `x`. */
export function popcount(x: number): number {
  return popcount32(Math.floor(x / TWO_32)) + popcount32(x >>> 0);
}

/** Number of trailing zero bits of `x`; requires x > 0. */
export function trailingZeros(x: number): number {
  const lo = x >>> 0;
  return lo === 0 ? 32 + ctz32(Math.floor(x / TWO_32)) : ctz32(lo);
}

/** Bitwise XOR of two safe non-negative integers. */
export function xor(a: number, b: number): number {
  const hi = (Math.floor(a / TWO_32) ^ Math.floor(b / TWO_32)) >>> 0;
  const lo = ((a >>> 0) ^ (b >>> 0)) >>> 0;
  return hi * TWO_32 + lo;
}

/** `x >> k` for a safe non-negative integer `x` (exact: division by a power of two). */
export function shiftRight(x: number, k: number): number {
  return Math.floor(x / 2 ** k);
}
