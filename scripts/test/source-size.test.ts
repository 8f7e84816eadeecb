/**
 * No source file of the workspace is over 600 lines (generated code excepted): sources, tests,
 * scripts and benches alike (scripts/lib/source-files.ts says which files count). A file that
 * grows past it is split by job.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../lib/source-files.js";
import { WORKSPACE_ROOT } from "../lib/workspace.js";

/** The most lines a source file may have. */
const MAX_LINES = 600;

describe("source file size", () => {
  const files = sourceFiles();

  it("finds the workspace's sources, tests, scripts and benches, and no generated code", () => {
    expect(files).toContain("packages/merkle-log/src/proof.ts");
    expect(files).toContain("apps/core-api/test/helpers.ts");
    expect(files).toContain("scripts/start.ts");
    expect(files).toContain("bench/run.ts");
    expect(files.filter((file) => file.includes("/generated/"))).toEqual([]);
    expect(files.filter((file) => file.includes("node_modules"))).toEqual([]);
  });

  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const over = files.flatMap((file) => {
      const text = readFileSync(join(WORKSPACE_ROOT, file), "utf8");
      const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
      return lines > MAX_LINES ? [`${file}: ${lines} lines (split it by job)`] : [];
    });
    expect(over, `source files over ${MAX_LINES} lines`).toEqual([]);
  });
});
