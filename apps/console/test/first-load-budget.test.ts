/**
 * The first-load budget of the console's build (build/first-load-budget.ts): what a visitor loads
 * first is the entry chunks and their static imports, transitively, never the chunks loaded on
 * demand; their gzip sizes add up; a forbidden module in them is reported with its chunk.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type BudgetChunk, measureFirstLoad } from "../build/first-load-budget.js";

/** A chunk of `size` incompressible-ish bytes. */
function chunk(fileName: string, size: number, init: Partial<BudgetChunk> = {}): BudgetChunk {
  let code = "";
  let seed = fileName.length;
  while (code.length < size) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    code += seed.toString(36);
  }
  return { fileName, code, isEntry: false, imports: [], moduleIds: [], ...init };
}

const gz = (text: string) => gzipSync(text, { level: 9 }).byteLength;

describe("measureFirstLoad", () => {
  const entry = chunk("assets/index.js", 20_000, {
    isEntry: true,
    imports: ["assets/vendor.js"],
    moduleIds: ["/app/src/main.tsx"],
  });
  const vendor = chunk("assets/vendor.js", 30_000, {
    imports: ["assets/shared.js"],
    moduleIds: ["/node_modules/react/index.js"],
  });
  const shared = chunk("assets/shared.js", 5_000, { moduleIds: ["/app/src/ui/format.ts"] });
  const lazy = chunk("assets/staking.js", 50_000, {
    imports: ["assets/shared.js"],
    moduleIds: ["/app/src/wallet/legacy-transaction.ts"],
  });

  it("counts the entry and its static imports, transitively, and not the chunks loaded on demand", () => {
    const report = measureFirstLoad([lazy, shared, vendor, entry], {
      maxGzipBytes: 1e6,
      forbidden: [/legacy-transaction\.ts$/],
    });
    expect(report.files).toEqual(["assets/index.js", "assets/vendor.js", "assets/shared.js"]);
    expect(report.gzipBytes).toBe(gz(entry.code) + gz(vendor.code) + gz(shared.code));
    expect(report.forbiddenFound).toEqual([]);
  });

  it("names a forbidden module that reached the first load, with its chunk", () => {
    const leaky = {
      ...vendor,
      moduleIds: [...vendor.moduleIds, "/app/src/wallet/legacy-transaction.ts"],
    };
    const report = measureFirstLoad([entry, leaky, shared], {
      maxGzipBytes: 1e6,
      forbidden: [/legacy-transaction\.ts$/, /@solana[\\/]web3\.js/],
    });
    expect(report.forbiddenFound).toEqual([
      "assets/vendor.js: /app/src/wallet/legacy-transaction.ts",
    ]);
  });

  it("reports the budget it was given, for the build to compare", () => {
    const report = measureFirstLoad([entry], { maxGzipBytes: 100, forbidden: [] });
    expect(report.maxGzipBytes).toBe(100);
    expect(report.gzipBytes).toBeGreaterThan(100);
  });
});
