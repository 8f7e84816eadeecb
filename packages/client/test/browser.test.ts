/**
 * The browser path stays browser-safe: `@verifiable-memory/client` bundles for the browser platform with
 * nothing from node:* and without @verifiable-memory/verifier (chain verification is the separate
 * `@verifiable-memory/client/verify` entry, so the SDK alone stays small).
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));

describe("the browser entry", () => {
  it("bundles for the browser with no Node module and without the verifier", async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => path.startsWith("node:"))).toEqual([]);
    expect(inputs.filter((path) => path.includes("packages/verifier"))).toEqual([]);
    expect(inputs.filter((path) => path.includes("@solana/web3.js"))).toEqual([]);
    const code = result.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).not.toMatch(/\bBuffer\.from\b/);
  });
});
