/** `pooledRandom`: independent draws of the requested length, across pool refills. */
import { describe, expect, it } from "vitest";
import { pooledRandom } from "../src/index.js";

describe("pooledRandom", () => {
  it("hands out each pool byte once: 2 000 16-byte draws (8 pool refills) are all distinct", () => {
    const draws = Array.from({ length: 2_000 }, () => pooledRandom(16));
    expect(draws.every((d) => d instanceof Uint8Array && d.length === 16)).toBe(true);
    expect(new Set(draws.map((d) => Buffer.from(d).toString("hex"))).size).toBe(2_000);
    // Bytes look uniform: the mean of 32 000 bytes is near 127.5 (σ of the mean ≈ 0.4).
    const bytes = draws.flatMap((d) => [...d]);
    const mean = bytes.reduce((a, b) => a + b, 0) / bytes.length;
    expect(Math.abs(mean - 127.5)).toBeLessThan(3);
  });

  it("a draw is a copy: changing it changes no later draw; lengths above the pool are drawn directly", () => {
    const a = pooledRandom(12);
    a.fill(0);
    expect(pooledRandom(12).some((b) => b !== 0)).toBe(true);
    expect(pooledRandom(5_000).length).toBe(5_000);
    expect(pooledRandom(0).length).toBe(0);
  });
});
