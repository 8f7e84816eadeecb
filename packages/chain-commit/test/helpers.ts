/**
 * Test helpers for the chain client: temporary directories, airdrops through the local chain's
 * JSON-RPC, a URL on which nothing listens, and distinct 32-byte roots.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory. */
export function tempDir(prefix = "chain-commit-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Deletes `dir` recursively. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A 32-byte root filled with `n`. */
export function rootOf(n: number): Uint8Array {
  return new Uint8Array(32).fill(n);
}

/** An http URL on a loopback port that was just free and is closed again. */
export function closedPortUrl(): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
}

/** A JSON-RPC request as the proxy sees it. */
export interface ProxiedRequest {
  readonly id: unknown;
  readonly method: string;
  readonly params: unknown[];
}

/** A running {@link startRpcProxy}. */
export interface RpcProxy {
  readonly url: string;
  /** Method names in the order they arrived. */
  readonly calls: string[];
  close(): Promise<void>;
}

/**
 * An HTTP JSON-RPC proxy in front of `target`: each request is offered to `intercept` first,
 * which may return the response body to send instead of forwarding (for simulating a node that
 * misbehaves in one specific way).
 */
export async function startRpcProxy(
  target: string,
  intercept: (request: ProxiedRequest) => object | undefined,
): Promise<RpcProxy> {
  const calls: string[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const request = JSON.parse(body) as ProxiedRequest;
      calls.push(request.method);
      const own = intercept(request);
      const answer =
        own === undefined
          ? await (
              await fetch(target, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body,
              })
            ).text()
          : JSON.stringify(own);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
