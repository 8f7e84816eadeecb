/**
 * The real service for the console's browser tests: testkit's startLocalService (a fresh
 * PostgreSQL database, the local chain, the real program in litesvm, with a funded anchoring
 * authority, core-api and the anchor service as child processes running their own `main.ts`,
 * as `pnpm start` runs them), and between the
 * browser and the chain a proxy that can flip one byte of every commitment account it relays
 * (the console must then refuse the proof). Nothing here imports another app: the apps run as
 * processes.
 * @module
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { startLocalService } from "@verifiable-memory/testkit";
import { CONSOLE_DIR, CONSOLE_DIST } from "../build/freshness.js";

const ROOT = resolve(CONSOLE_DIR, "../..");
/** Offset of the root in the 121-byte commitment account (discriminator, authority, owner). */
const ROOT_OFFSET = 8 + 32 + 32;

/** The chain proxy between the browser and the chain. */
export interface ChainProxy {
  readonly url: string;
  /** While true, every commitment account relayed has one byte of its root flipped. */
  flip: boolean;
  close(): Promise<void>;
}

/** Reads a request's body. */
function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks)));
    req.on("error", fail);
  });
}

/** Flips one root byte of a 121-byte account in a `getAccountInfo` answer. */
function flipAccount(text: string): string {
  const answer = JSON.parse(text) as {
    result?: { value: { data: [string, string] } | null };
  };
  const value = answer.result?.value;
  if (value === null || value === undefined) {
    return text;
  }
  const data = Buffer.from(value.data[0], "base64");
  if (data.length === 121) {
    data[ROOT_OFFSET] = (data[ROOT_OFFSET] ?? 0) ^ 0x01;
    value.data[0] = data.toString("base64");
  }
  return JSON.stringify(answer);
}

/** Starts the proxy in front of `chainUrl` (CORS answered as the chain answers it). */
export async function startChainProxy(chainUrl: string): Promise<ChainProxy> {
  const proxy: ChainProxy = { url: "", flip: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const upstream = await fetch(chainUrl, {
        method: req.method ?? "GET",
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            (entry): entry is [string, string] =>
              typeof entry[1] === "string" && !["host", "content-length"].includes(entry[0]),
          ),
        ),
        ...(body.length > 0 ? { body: body.toString("utf8") } : {}),
      });
      let text = await upstream.text();
      const method =
        body.length > 0 ? (JSON.parse(body.toString("utf8")) as { method?: string }).method : null;
      if (proxy.flip && method === "getAccountInfo") {
        text = flipAccount(text);
      }
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (
          !["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)
        ) {
          headers[name] = value;
        }
      });
      res.writeHead(upstream.status, headers).end(text);
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
  return proxy;
}

/** A running service. */
export interface Service {
  /** core-api's base URL (the console is at `<apiUrl>/console/`). */
  readonly apiUrl: string;
  /** The chain's own URL (for the test's own reads and airdrops). */
  readonly chainUrl: string;
  /** The URL the console reads the chain from (the proxy). */
  readonly proxy: ChainProxy;
  close(): Promise<void>;
}

/**
 * Starts the whole service (see the module documentation): testkit's startLocalService on a
 * fresh database, with the chain proxy between the chain and core-api's console settings.
 */
export async function startService(): Promise<Service> {
  const service = await startLocalService({
    root: ROOT,
    db: await createTestDatabase(),
    tempPrefix: "console-e2e-",
    front: async (chainUrl) => {
      const proxy = await startChainProxy(chainUrl);
      return {
        proxy,
        apiEnv: { CONSOLE_CHAIN_RPC_URL: proxy.url, CONSOLE_DIR: CONSOLE_DIST },
        close: () => proxy.close(),
      };
    },
  });
  return {
    apiUrl: service.apiUrl,
    chainUrl: service.chainUrl,
    proxy: service.front.proxy,
    close: service.close,
  };
}
