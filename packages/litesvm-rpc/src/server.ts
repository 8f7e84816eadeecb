/**
 * `startLocalChain`: the embedded default chain of docs/protocol.md §7 (the role solana-test-validator
 * plays): a {@link Chain} behind Solana JSON-RPC 2.0 over HTTP on `port` (single and batch
 * requests, POST), the PubSub WebSocket on `port + 1`, `GET /healthz` → 200 `{"status":"ok"}`
 * (503 once the ledger cannot be written) and `GET /readyz` → 200 `{"status":"ready"}` while the
 * program is deployed, the ledger loaded and writable, and the chain not stopping.
 * Like agave's RPC service, the HTTP endpoint answers CORS for any origin (`Access-Control-Allow-Origin:
 * *` on every response, preflights answered 204), so a page, such as the web console checking a
 * proof, can read the chain straight from the browser; no credential is involved.
 * Every HTTP response carries `x-request-id` (a sane incoming one is kept); each JSON-RPC call is
 * logged at debug level (request id, method, duration, error code; never its parameters) and an
 * unexpected failure at error level.
 * Source: docs/protocol.md §1, §7, §10; JSON-RPC 2.0 §4–§6; agave `rpc_service.rs` (GET /health).
 * @module
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PublicKey } from "@solana/web3.js";
import { type Logger, pino } from "pino";
import { Chain } from "./chain.js";
import { PubSub } from "./pubsub.js";
import { handleRequest, type RpcResponse } from "./rpc.js";
import { RpcError, RpcErrorCode } from "./rpc-error.js";

/** Largest accepted request body (agave MAX_REQUEST_BODY_SIZE is 50 MiB; ours is smaller). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** How long close() lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 5000;
/** Idle keep-alive time of client connections. */
const KEEP_ALIVE_MS = 65_000;
/** Attempts at finding two adjacent free ports when `port` is 0. */
const PORT_ATTEMPTS = 20;
/** An incoming x-request-id is kept only when it is short and plain (as in the other apps). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Options of {@link startLocalChain}. */
export interface LocalChainOptions {
  /** HTTP JSON-RPC port; the WebSocket is served on port + 1. 0 picks a free pair. */
  readonly port: number;
  /** Service data directory; chain state lives in `<dataDir>/chain`. */
  readonly dataDir: string;
  /** Program id (base58) the commitment program is deployed at. */
  readonly programId: string;
  /** Interface to bind; default 127.0.0.1 (the faucet is unauthenticated). */
  readonly host?: string;
  /** Stake lock period a new chain is created with, seconds; default 604 800 (7 days). */
  readonly stakeLockSeconds?: number;
  /**
   * The deployment's anchor authority (base58): written into the program's anchor configuration
   * at every start, so only it (or an owner) can create commitment accounts. Default: none, and
   * `initialize` stays open to anyone (docs/protocol.md §7.1 "The commitment account").
   */
  readonly anchorAuthority?: string;
  /**
   * Structured logger: JSON-RPC calls at debug, unexpected errors at error level. Default: pino on
   * stdout at level info, `service: "local-chain"`.
   */
  readonly logger?: Logger;
  /**
   * Called with unexpected errors (answered as -32603) instead of logging them; default: logged
   * at error level (name, message, stack) with the request id and method.
   */
  readonly onError?: (error: unknown) => void;
}

/** A running local chain. */
export interface LocalChain {
  /** JSON-RPC URL, e.g. `http://127.0.0.1:8899`. */
  readonly url: string;
  /** PubSub URL, e.g. `ws://127.0.0.1:8900`. */
  readonly wsUrl: string;
  /** Genesis hash of this chain (getGenesisHash), stable across restarts of one dataDir. */
  readonly genesisHash: string;
  /**
   * PubSub clients connected now. A test waits for 0 before `close()`: web3.js closes its idle
   * socket 500 ms after its last subscription ends, and reconnects when the server goes first.
   */
  pubSubClients(): number;
  /** Stops both servers, then flushes and closes the ledger. Idempotent. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Binds `http` to `port` and `ws` to `port + 1`; with port 0, finds a free adjacent pair. */
async function bindPair(http: Server, ws: Server, port: number, host: string): Promise<number> {
  if (port !== 0) {
    await listen(http, port, host);
    try {
      await listen(ws, port + 1, host);
    } catch (error) {
      await closeServer(http);
      throw error;
    }
    return port;
  }
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const chosen = await listen(http, 0, host);
    if (chosen < 65_535) {
      try {
        await listen(ws, chosen + 1, host);
        return chosen;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") {
          await closeServer(http);
          throw error;
        }
      }
    }
    await closeServer(http);
  }
  throw new Error(`no two adjacent free ports found on ${host} after ${PORT_ATTEMPTS} attempts`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Name, message and stack of an error: what an error log line keeps of it. */
export function errorSummary(error: unknown): { name: string; message: string; stack?: string } {
  if (!(error instanceof Error)) {
    return { name: "NonError", message: `a ${typeof error} was thrown` };
  }
  return {
    name: error.name,
    message: error.message,
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

/** Per-HTTP-request context of {@link answer}. */
interface RequestContext {
  readonly requestId: string;
  readonly logger: Logger;
  readonly onError: ((error: unknown) => void) | undefined;
}

/** The method name of a JSON-RPC request object, if it has one. */
function methodOf(request: unknown): string | null {
  const method = (request as { method?: unknown } | null)?.method;
  return typeof method === "string" ? method.slice(0, 64) : null;
}

/** Answers one JSON-RPC call and logs it (debug; an unexpected failure at error level). */
async function call(
  chain: Chain,
  request: unknown,
  context: RequestContext,
): Promise<RpcResponse | null> {
  const started = performance.now();
  const method = methodOf(request);
  const response = await handleRequest(chain, request, (error) => {
    if (context.onError) {
      context.onError(error);
      return;
    }
    context.logger.error(
      { requestId: context.requestId, method, err: errorSummary(error) },
      "rpc internal error",
    );
  });
  if (context.logger.isLevelEnabled("debug")) {
    const error = response && "error" in response ? response.error.code : undefined;
    context.logger.debug(
      {
        requestId: context.requestId,
        method,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ...(error === undefined ? {} : { error }),
      },
      "rpc",
    );
  }
  return response;
}

async function answer(
  chain: Chain,
  body: Buffer,
  context: RequestContext,
): Promise<RpcResponse | RpcResponse[] | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    context.logger.debug({ requestId: context.requestId, error: RpcErrorCode.parseError }, "rpc");
    return {
      jsonrpc: "2.0",
      id: null,
      error: new RpcError(RpcErrorCode.parseError, "Parse error").toJSON(),
    };
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) {
      return {
        jsonrpc: "2.0",
        id: null,
        error: new RpcError(RpcErrorCode.invalidRequest, "Invalid Request").toJSON(),
      };
    }
    const responses: RpcResponse[] = [];
    for (const request of parsed) {
      const response = await call(chain, request, context);
      if (response) {
        responses.push(response);
      }
    }
    return responses.length > 0 ? responses : null;
  }
  return call(chain, parsed, context);
}

/** Why the chain is not ready, or null when it is. */
function notReady(
  chain: Chain,
  programKey: PublicKey,
  closing: boolean,
): { code: string; message: string } | null {
  if (closing) {
    return { code: "shutting_down", message: "the local chain is stopping" };
  }
  if (!chain.healthy) {
    return { code: "ledger_unwritable", message: "the ledger cannot be written" };
  }
  if (!chain.getAccount(programKey)?.executable) {
    return { code: "program_not_deployed", message: "the commitment program is not deployed" };
  }
  return null;
}

/**
 * Starts the local chain: opens (or creates) the chain in `<dataDir>/chain` with the commitment
 * program deployed at `programId`, then serves JSON-RPC on `port` and PubSub on `port + 1`.
 * @returns its URLs and `close()`.
 * @throws TypeError for a bad `programId`; RangeError for a port outside 0..65534; the listen
 *   error (EADDRINUSE…) when a fixed port is taken; LedgerCorruptError for a damaged ledger.
 * @example
 *   const chain = await startLocalChain({ port: 0, dataDir: "/tmp/x", programId: LOCAL_PROGRAM_ID });
 *   const connection = new Connection(chain.url, "confirmed");
 */
export async function startLocalChain(options: LocalChainOptions): Promise<LocalChain> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_534) {
    throw new RangeError(`port must be an integer in 0..65534, got ${options.port}`);
  }
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? pino({ base: { service: "local-chain", pid: process.pid } });
  const onError = options.onError;
  const chain = await Chain.open({
    dataDir: options.dataDir,
    programId: options.programId,
    ...(options.stakeLockSeconds === undefined
      ? {}
      : { stakeLockSeconds: options.stakeLockSeconds }),
    ...(options.anchorAuthority === undefined ? {} : { anchorAuthority: options.anchorAuthority }),
  });
  const programKey = new PublicKey(options.programId);
  let closing: Promise<void> | null = null;

  const http = createServer((req, res) => {
    const incoming = req.headers["x-request-id"];
    const requestId =
      typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("x-request-id", requestId);
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", "x-request-id");
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "POST, GET, OPTIONS",
        "access-control-allow-headers":
          req.headers["access-control-request-headers"] ?? "content-type",
        "access-control-max-age": "86400",
      });
      res.end();
      return;
    }
    if (req.method === "GET" && path === "/readyz") {
      const reason = notReady(chain, programKey, closing !== null);
      if (reason) {
        logger.warn({ requestId, reason: reason.code }, "not ready");
        sendJson(res, 503, { error: reason });
        return;
      }
      sendJson(res, 200, { status: "ready" });
      return;
    }
    if (req.method === "GET" && (path === "/healthz" || path === "/health")) {
      const ok = chain.healthy;
      if (path === "/health") {
        res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" });
        res.end(ok ? "ok" : "unknown");
        return;
      }
      sendJson(res, ok ? 200 : 503, { status: ok ? "ok" : "unhealthy" });
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" });
      res.end();
      return;
    }
    readBody(req)
      .then(async (body) => {
        if (body === null) {
          res.writeHead(413);
          res.end();
          return;
        }
        const response = await answer(chain, body, { requestId, logger, onError });
        if (response === null) {
          res.writeHead(204);
          res.end();
          return;
        }
        sendJson(res, 200, response);
      })
      .catch((error: unknown) => {
        if (onError) {
          onError(error);
        } else {
          logger.error({ requestId, err: errorSummary(error) }, "request failed");
        }
        if (!res.headersSent) {
          sendJson(res, 500, {
            jsonrpc: "2.0",
            id: null,
            error: new RpcError(RpcErrorCode.internalError, "Internal error").toJSON(),
          });
        }
      });
  });
  // Keep idle client connections longer than clients do (undici: 4 s), so a request never races
  // the server closing its connection.
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1000;
  const wsHttp = createServer((_req, res) => {
    res.writeHead(426, { upgrade: "websocket" });
    res.end();
  });
  let port: number;
  try {
    port = await bindPair(http, wsHttp, options.port, host);
  } catch (error) {
    await chain.close();
    throw error;
  }
  const pubsub = new PubSub(chain, wsHttp);
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    wsUrl: `ws://${urlHost}:${port + 1}`,
    genesisHash: chain.genesis.genesisHash,
    pubSubClients: () => pubsub.clients(),
    close() {
      closing ??= (async () => {
        await pubsub.close();
        await Promise.all([closeServer(http), closeServer(wsHttp)]);
        await chain.close();
      })();
      return closing;
    },
  };
}
