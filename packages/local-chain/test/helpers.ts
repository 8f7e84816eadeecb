/**
 * Test helpers for the local chain: a temporary data directory, raw JSON-RPC calls over HTTP,
 * and a pause that lets web3.js close its idle PubSub socket before a chain is stopped.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory; remove it with {@link removeDir}. */
export function tempDir(prefix = "local-chain-"): string {
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
 * Waits until web3.js has closed its idle PubSub socket (it does so 500 ms after the last
 * subscription ends), so stopping a chain does not leave a client reconnecting.
 */
export function settleWebSockets(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 700));
}
