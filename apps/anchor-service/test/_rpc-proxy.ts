/**
 * A JSON-RPC proxy in front of the local chain for failure injection: each call can be passed
 * through (optionally held for a while first: a slow RPC node), failed with HTTP 503 before
 * reaching the chain (an RPC provider outage), forwarded with its answer lost on the way back (the
 * outcome unknown to the client), or answered with a canned result (a lagging RPC node serving a
 * stale account, a node that never reports a signature's status, a node that drops a transaction).
 * It also counts, per method, how many calls were in flight at once (arrival to answer). The chain
 * itself stays real; only the network between the service and it misbehaves (fakes
 * only for what lies outside the service).
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One JSON-RPC call seen by the proxy. */
export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** What the proxy does with a call. */
export type RpcAction =
  | { readonly kind: "pass"; readonly delayMs?: number }
  | { readonly kind: "fail" }
  | { readonly kind: "forward-then-fail" }
  | { readonly kind: "reply"; readonly result: unknown };

/** A running proxy. */
export interface RpcProxy {
  /** HTTP URL of the proxy. */
  readonly url: string;
  /** Every call received, in order. */
  readonly calls: RpcCall[];
  /** Calls of each method in flight right now (from arrival until the answer is written). */
  readonly inFlight: Map<string, number>;
  /** The most calls of each method ever in flight at once. */
  readonly maxInFlight: Map<string, number>;
  /** Decides each call; default: pass everything. */
  rule: (call: RpcCall) => RpcAction;
  /** Sees the upstream result of every passed call. */
  onResult: (call: RpcCall, result: unknown) => void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts a proxy on 127.0.0.1 (a free port) forwarding to `target`. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = {
    url: "",
    calls: [],
    inFlight: new Map(),
    maxInFlight: new Map(),
    rule: () => ({ kind: "pass" }),
    onResult: () => {},
    close: async () => {},
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const parsed = JSON.parse(body) as unknown;
    // Batch requests are forwarded untouched (the clients under test send single calls).
    const request = (Array.isArray(parsed) ? { id: null, method: "(batch)" } : parsed) as {
      id: unknown;
      method: string;
      params?: unknown[];
    };
    const call: RpcCall = { method: request.method, params: request.params ?? [] };
    proxy.calls.push(call);
    const now = (proxy.inFlight.get(call.method) ?? 0) + 1;
    proxy.inFlight.set(call.method, now);
    proxy.maxInFlight.set(call.method, Math.max(now, proxy.maxInFlight.get(call.method) ?? 0));
    res.once("close", () => {
      proxy.inFlight.set(call.method, (proxy.inFlight.get(call.method) ?? 1) - 1);
    });
    const action = Array.isArray(parsed) ? ({ kind: "pass" } as const) : proxy.rule(call);
    if (action.kind === "fail") {
      res.writeHead(503, { "content-type": "text/plain" }).end("injected RPC outage");
      return;
    }
    if (action.kind === "reply") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: action.result }));
      return;
    }
    if (action.kind === "pass" && action.delayMs) {
      await new Promise((resolve) => setTimeout(resolve, action.delayMs));
    }
    const upstream = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await upstream.text();
    if (action.kind === "forward-then-fail") {
      res.writeHead(503, { "content-type": "text/plain" }).end("injected: answer lost");
      return;
    }
    try {
      proxy.onResult(call, (JSON.parse(text) as { result?: unknown }).result);
    } catch {
      // Not JSON: forwarded as is.
    }
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(502).end("proxy error");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return proxy;
}
