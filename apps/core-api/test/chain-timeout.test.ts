/**
 * CHAIN_RPC_TIMEOUT_MS (docs/protocol.md §7.4 "The chain client"): a chain RPC that accepts
 * connections and never answers makes the routes that read the chain answer 503
 * `chain_unavailable` once the timeout passes, instead of waiting the RPC client's own 15 s. Real
 * HTTP on both sides: the hung RPC is a TCP server that reads requests and writes nothing.
 */

import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let hung: Server;
const sockets = new Set<Socket>();
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  hung = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
  const { port } = hung.address() as AddressInfo;
  t = await startTestApp({
    env: { CHAIN_RPC_URL: `http://127.0.0.1:${port}`, CHAIN_RPC_TIMEOUT_MS: "400" },
  });
  user = await newUser(t.url);
});
afterAll(async () => {
  await t.close();
  for (const socket of sockets) {
    socket.destroy();
  }
  await new Promise<void>((resolve) => hung.close(() => resolve()));
});

describe("a hung chain RPC", () => {
  it("GET /staking answers 503 chain_unavailable after CHAIN_RPC_TIMEOUT_MS, well before 15 s", async () => {
    const started = performance.now();
    const res = await call<{ error: { code: string } }>(`${t.url}/staking`, {
      headers: user.headers,
    });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("chain_unavailable");
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(10_000);
  });
});
