/**
 * The verifier's offline parts: the docs/protocol.md §5 leaf encoding (RFC 8785 + RFC 9162 leaf hash),
 * the content hash, the commitment account layout (cross-checked against the program package's
 * decoder), bundle parsing, and the CLI's usage errors (exit 2). Chain-backed verification is in
 * chain.test.ts.
 */
import { createHash, randomBytes } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import {
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  decodeCommitment,
  findCommitmentAddress,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { describe, expect, it } from "vitest";
import {
  BundleFormatError,
  type CliIo,
  commitmentAddress,
  contentHashOf,
  decodeCommitmentAccount,
  InvalidAccountError,
  leafDataBytes,
  leafHashOf,
  parseInput,
  runCli,
  verifyBundle,
} from "../src/index.js";

const owner = new PublicKey(randomBytes(32)).toBase58();
const leafData = {
  v: 1 as const,
  memoryId: "m-1",
  owner,
  createdAt: "2026-11-22T10:00:00.000Z",
  metadata: { topic: "ünïcode", n: 1e21, z: [0.5, true, null], a: { y: 2, x: 1 } },
  contentHash: "ab".repeat(32),
};

function bundle(overrides: Record<string, unknown> = {}) {
  return {
    memoryId: "m-1",
    leafIndex: 0,
    leafHash: Buffer.from(leafHashOf(leafData)).toString("hex"),
    leafData,
    salt: Buffer.alloc(16, 7).toString("base64"),
    anchored: true,
    checkpoint: { treeSize: 1, rootHash: "00".repeat(32) },
    inclusionProof: [],
    anchor: {
      cluster: "localnet",
      programId: LOCAL_PROGRAM_ID,
      account: commitmentAddress(owner, LOCAL_PROGRAM_ID),
      memoryCount: 1,
      nonce: 1,
      signature: "sig",
    },
    ...overrides,
  };
}

describe("leaf encoding (docs/protocol.md §5)", () => {
  it("hashes the RFC 8785 canonical JSON with the 0x00 leaf prefix", () => {
    const text = new TextDecoder().decode(leafDataBytes(leafData));
    // RFC 8785: keys sorted by UTF-16 code units, ES6 number serialisation, no whitespace.
    expect(text).toBe(
      `{"contentHash":"${"ab".repeat(32)}","createdAt":"2026-11-22T10:00:00.000Z","memoryId":"m-1",` +
        `"metadata":{"a":{"x":1,"y":2},"n":1e+21,"topic":"ünïcode","z":[0.5,true,null]},` +
        `"owner":"${owner}","v":1}`,
    );
    const expected = createHash("sha256")
      .update(Buffer.from([0]))
      .update(Buffer.from(text, "utf8"))
      .digest();
    expect(Buffer.from(leafHashOf(leafData))).toEqual(expected);
  });

  it("content hash is hex SHA-256(salt ‖ UTF-8 content)", () => {
    const salt = randomBytes(16);
    const expected = createHash("sha256")
      .update(Buffer.concat([salt, Buffer.from("héllo", "utf8")]))
      .digest("hex");
    expect(contentHashOf(salt, "héllo")).toBe(expected);
    expect(contentHashOf(salt, "hello")).not.toBe(expected);
  });
});

describe("commitment account (docs/protocol.md §7)", () => {
  it("derives the PDA and decodes the 121-byte layout like the program package", () => {
    const programId = new PublicKey(LOCAL_PROGRAM_ID);
    const [pda] = findCommitmentAddress(new PublicKey(owner), programId);
    expect(commitmentAddress(owner, LOCAL_PROGRAM_ID)).toBe(pda.toBase58());

    const data = Buffer.alloc(121);
    Buffer.from(COMMITMENT_ACCOUNT_DISCRIMINATOR).copy(data, 0);
    randomBytes(32).copy(data, 8);
    new PublicKey(owner).toBuffer().copy(data, 40);
    randomBytes(32).copy(data, 72);
    data.writeBigUInt64LE(12345n, 104);
    data.writeBigUInt64LE(7n, 112);
    data[120] = 254;
    const ours = decodeCommitmentAccount(data, pda.toBase58(), LOCAL_PROGRAM_ID);
    const theirs = decodeCommitment(data);
    expect(ours).toEqual({
      account: pda.toBase58(),
      programId: LOCAL_PROGRAM_ID,
      authority: theirs.authority,
      owner: theirs.owner,
      root: Buffer.from(theirs.root).toString("hex"),
      memoryCount: Number(theirs.memoryCount),
      nonce: Number(theirs.nonce),
    });
    data[0] = (data[0] ?? 0) ^ 1;
    expect(() => decodeCommitmentAccount(data, "a", "p")).toThrow(InvalidAccountError);
    expect(() => decodeCommitmentAccount(data.subarray(0, 120), "a", "p")).toThrow(
      InvalidAccountError,
    );
  });
});

describe("parseInput", () => {
  it("accepts a proof bundle and a grant memory with a nested proof and content", () => {
    expect(parseInput(bundle()).content).toBeNull();
    const fromGrant = parseInput({ id: "m-1", content: "hello", proof: bundle() });
    expect(fromGrant.content).toBe("hello");
    expect(fromGrant.bundle.leafData).toEqual(leafData);
  });

  it.each([
    ["leafIndex", { leafIndex: -1 }],
    ["leafHash", { leafHash: "AB".repeat(32) }],
    ["salt", { salt: "not base64!" }],
    ["inclusionProof[0]", { inclusionProof: ["zz"] }],
    ["leafData.v", { leafData: { ...leafData, v: 3 } }],
    ["leafData.namespace", { leafData: { ...leafData, v: 2 } }],
    [
      "leafData.writtenBy",
      {
        leafData: {
          ...leafData,
          v: 2,
          namespace: null,
          supersedes: null,
          writtenBy: { kind: "x" },
        },
      },
    ],
    ["leafData.extra", { leafData: { ...leafData, extra: 1 } }],
    ["checkpoint.rootHash", { checkpoint: { treeSize: 1, rootHash: "x" } }],
    ["anchor.memoryCount", { anchor: { ...bundle().anchor, memoryCount: "1" } }],
  ])("names the malformed field %s", (field, overrides) => {
    expect(() => parseInput(bundle(overrides))).toThrow(
      expect.objectContaining({ name: BundleFormatError.name, field }),
    );
  });
});

describe("verifyBundle without reaching the chain", () => {
  const rpcUrl = "http://127.0.0.1:9"; // never contacted by these cases
  it.each([
    ["malformed_bundle", { leafIndex: "0" }, {}],
    ["not_anchored", { anchored: false, checkpoint: null, inclusionProof: null, anchor: null }, {}],
    ["leaf_mismatch", { leafHash: "00".repeat(32) }, {}],
    ["leaf_mismatch", { memoryId: "m-2" }, {}],
    ["content_mismatch", {}, { content: "not the content" }],
    ["account_mismatch", {}, { programId: new PublicKey(randomBytes(32)).toBase58() }],
  ])("%s", async (reason, overrides, options) => {
    const result = await verifyBundle(bundle(overrides), { rpcUrl, ...options });
    expect(result).toMatchObject({ verified: false, reason, onChain: null });
  });

  it("reports an unreachable RPC as chain_unavailable (unknown), not as a verdict on the proof", async () => {
    const result = await verifyBundle(bundle(), { rpcUrl, timeoutMs: 2000 });
    expect(result).toMatchObject({ verified: false, reason: "chain_unavailable" });
  });
});

describe("svc-verify usage errors (exit 2)", () => {
  function io(files: Record<string, string>, stdin = ""): CliIo & { out: string[] } {
    const out: string[] = [];
    return {
      out,
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      readStdin: async () => stdin,
      readFile: async (path) => {
        const text = files[path];
        if (text === undefined) {
          throw new Error(`ENOENT: ${path}`);
        }
        return text;
      },
    };
  }

  it.each([
    ["no --rpc", ["b.json"], { "b.json": "{}" }],
    ["an unknown flag", ["--rpc", "http://x", "--nope", "b.json"], { "b.json": "{}" }],
    ["a missing file", ["--rpc", "http://x", "missing.json"], {}],
    ["input that is not JSON", ["--rpc", "http://x", "b.json"], { "b.json": "{not json" }],
    ["two bundle files", ["--rpc", "http://x", "a", "b"], { a: "{}", b: "{}" }],
  ])("%s", async (_case, argv, files) => {
    const streams = io(files);
    expect(await runCli(argv, streams)).toBe(2);
    expect(streams.out.join("")).toContain("usage: svc-verify");
  });

  it("reads the bundle from stdin and prints NOT VERIFIED with the reason (exit 1)", async () => {
    const streams = io({}, JSON.stringify(bundle({ leafHash: "00".repeat(32) })));
    expect(await runCli(["--rpc", "http://127.0.0.1:9"], streams)).toBe(1);
    expect(streams.out[0]).toBe("NOT VERIFIED: leaf_mismatch\n");
  });
});
