/**
 * Structured logs of the local chain: each JSON-RPC call is one pino JSON line
 * at debug level with the HTTP request id, the method, the duration and the error code, never
 * the call's parameters.
 * @module
 */

import { Writable } from "node:stream";
import { Keypair } from "@solana/web3.js";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChain, startLocalChain } from "../src/index.js";
import { removeDir, tempDir } from "./helpers.js";

const written: string[] = [];
const sink = new Writable({
  write(chunk: Buffer | string, _encoding, done) {
    written.push(String(chunk));
    done();
  },
});

let chain: LocalChain;
let dataDir: string;
beforeAll(async () => {
  dataDir = tempDir();
  chain = await startLocalChain({
    port: 0,
    dataDir,
    programId: LOCAL_PROGRAM_ID,
    logger: pino({ level: "debug" }, sink),
  });
});
afterAll(async () => {
  await chain.close();
  removeDir(dataDir);
});

function lines(): Record<string, unknown>[] {
  return written
    .join("")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("JSON-RPC request logs", () => {
  it("log each call with the request id and method, without its parameters", async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const res = await fetch(chain.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "batch-1" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "getBalance", params: [wallet] },
        { jsonrpc: "2.0", id: 2, method: "getNoSuchThing" },
      ]),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("batch-1");
    await fetch(chain.url, { method: "POST", body: "{not json" });

    const rpc = lines().filter((line) => line.msg === "rpc");
    expect(rpc.slice(0, 2)).toMatchObject([
      { level: 20, requestId: "batch-1", method: "getBalance" },
      { level: 20, requestId: "batch-1", method: "getNoSuchThing", error: -32601 },
    ]);
    expect(typeof rpc[0]?.ms).toBe("number");
    expect(rpc[2]).toMatchObject({ level: 20, error: -32700 });
    expect(rpc[2]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(written.join("")).not.toContain(wallet);
  });
});
