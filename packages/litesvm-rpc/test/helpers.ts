/**
 * Test helpers for the local chain: a temporary data directory, raw JSON-RPC calls over HTTP,
 * and waiting, on a condition, for web3.js to close its idle PubSub socket before a chain is
 * stopped.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalChain } from "../src/index.js";

/** A fresh temporary directory; remove it with {@link removeDir}. */
export function tempDir(prefix = "litesvm-rpc-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Deletes `dir` recursively. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The full JSON-RPC response body of one call. */
export interface RawResponse {
  readonly jsonrpc: "2.0";
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** POSTs one JSON-RPC 2.0 request to `url` and returns the parsed response body. */
export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<RawResponse> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as RawResponse;
}

/**
 * Waits until no PubSub client is connected to `chain` (web3.js closes its idle socket 500 ms
 * after the last subscription ends), so stopping the chain does not leave a client reconnecting.
 * @throws Error when a client is still connected after `timeoutMs` (default 10 000).
 */
export async function settleWebSockets(chain: LocalChain, timeoutMs = 10_000): Promise<void> {
  await until("the PubSub clients to disconnect", () => chain.pubSubClients() === 0, timeoutMs);
}

/**
 * Polls `check` every 20 ms until it holds.
 * @throws Error naming `what` when `timeoutMs` passes first.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
