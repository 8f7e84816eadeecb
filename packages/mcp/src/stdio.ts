#!/usr/bin/env node
/**
 * The stdio MCP server (`svc-mcp`, and `svc mcp` of the CLI): an MCP client (Claude Desktop, an
 * IDE, an agent framework) spawns it and talks JSON-RPC over its stdin/stdout; it calls core-api
 * over HTTP with an API key or session token (`@verifiable-memory/client`). Configured by the environment:
 * `SVC_URL`, `SVC_API_KEY` (or `SVC_TOKEN`), `SVC_NAMESPACE`, `SVC_RPC_URL`, `SVC_PROGRAM_ID`,
 * `SVC_AUTHORITY`. Nothing but MCP messages is written to stdout; diagnostics go to stderr.
 *
 * Run directly: `node packages/mcp/bin/svc-mcp.js` or `tsx packages/mcp/src/stdio.ts` in the workspace;
 * the published bin `svc-mcp` is this file built (dist/stdio.js, plain node).
 * @module
 */
import { realpathSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type ClientOptions, createClient } from "@verifiable-memory/client";
import { NAMESPACE_PATTERN } from "@verifiable-memory/memory-schemas";
import { type ClientBackendOptions, clientBackend } from "./client-backend.js";
import { createMemoryMcpServer } from "./server.js";
import { StrictStdioServerTransport } from "./strict-stdio-transport.js";

/** Options of {@link runStdioServer}. */
export interface StdioServerOptions extends ClientBackendOptions {
  /** core-api's base URL, e.g. `http://localhost:8787`. */
  readonly url: string;
  /** An API key (`svc_…`). Give it or `token`. */
  readonly apiKey?: string | undefined;
  /** A session JWT (from a wallet sign-in; valid one hour). Give it or `apiKey`. */
  readonly token?: string | undefined;
  /** Confine the server to this namespace prefix (see `createMemoryMcpServer`). */
  readonly namespace?: string | undefined;
  /** Where MCP messages are read; default `process.stdin`. */
  readonly stdin?: Readable | undefined;
  /** Where MCP messages are written; default `process.stdout`. */
  readonly stdout?: Writable | undefined;
  /** Where diagnostics are written; default `process.stderr`. */
  readonly stderr?: Writable | undefined;
  /** The fetch the API client uses; default the global fetch. */
  readonly fetch?: ClientOptions["fetch"];
}

/** A running stdio server. */
export interface StdioServerHandle {
  /** The MCP server. */
  readonly server: Server;
  /** Settles when the server has closed: the client closed stdin, or {@link close} was called. */
  readonly closed: Promise<void>;
  /** Closes the server and its transport. */
  close(): Promise<void>;
}

/** A configuration the stdio server cannot start with. */
export class StdioConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StdioConfigError";
  }
}

/** The environment variables {@link stdioOptionsFromEnv} reads. */
export const STDIO_ENV = [
  "SVC_URL",
  "SVC_API_KEY",
  "SVC_TOKEN",
  "SVC_NAMESPACE",
  "SVC_RPC_URL",
  "SVC_PROGRAM_ID",
  "SVC_AUTHORITY",
  "SVC_LOG_KEYS",
] as const;

/**
 * The stdio server's options from the environment: `SVC_URL` (required), `SVC_API_KEY` or
 * `SVC_TOKEN` (one of them), `SVC_NAMESPACE` (confinement), `SVC_RPC_URL` (the Solana RPC `verify`
 * reads), `SVC_PROGRAM_ID` and `SVC_AUTHORITY` (pins for `verify`), `SVC_LOG_KEYS` (comma-separated
 * log verifier keys `verify` trusts for signed user checkpoints, docs/protocol.md §13.1 "The log
 * key"). Empty values count as unset.
 * @throws StdioConfigError naming what is missing or malformed.
 */
export function stdioOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StdioServerOptions {
  const value = (name: (typeof STDIO_ENV)[number]) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === "" ? undefined : raw;
  };
  const options: StdioServerOptions = {
    url: value("SVC_URL") ?? "",
    apiKey: value("SVC_API_KEY"),
    token: value("SVC_TOKEN"),
    namespace: value("SVC_NAMESPACE"),
    rpcUrl: value("SVC_RPC_URL"),
    programId: value("SVC_PROGRAM_ID"),
    authority: value("SVC_AUTHORITY"),
    logKeys: value("SVC_LOG_KEYS")
      ?.split(",")
      .map((key) => key.trim())
      .filter((key) => key !== ""),
  };
  checkOptions(options, {
    url: "SVC_URL",
    credential: "SVC_API_KEY (or SVC_TOKEN)",
    namespace: "SVC_NAMESPACE",
    rpcUrl: "SVC_RPC_URL",
  });
  return options;
}

/** Refuses options the server cannot run with, naming them as `names` says. */
function checkOptions(
  options: StdioServerOptions,
  names: { url: string; credential: string; namespace: string; rpcUrl: string },
): void {
  if (!isHttpUrl(options.url)) {
    throw new StdioConfigError(
      `${names.url} must be core-api's http(s) URL, e.g. http://localhost:8787`,
    );
  }
  if (options.apiKey === undefined && options.token === undefined) {
    throw new StdioConfigError(`${names.credential} is required: the credential to act with`);
  }
  if (options.apiKey !== undefined && options.token !== undefined) {
    throw new StdioConfigError("give an API key or a session token, not both");
  }
  if (options.namespace !== undefined && !NAMESPACE_PATTERN.test(options.namespace)) {
    throw new StdioConfigError(
      `${names.namespace} must be 1–128 characters of A–Z a–z 0–9 . _ : / -`,
    );
  }
  if (options.rpcUrl !== undefined && !isHttpUrl(options.rpcUrl)) {
    throw new StdioConfigError(`${names.rpcUrl} must be an http(s) Solana JSON-RPC URL`);
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Starts the MCP server on stdio: builds an `@verifiable-memory/client` client for `options.url` with the API
 * key or token, the {@link clientBackend} over it, and `createMemoryMcpServer` with the
 * namespace, then connects it to stdin/stdout through {@link StrictStdioServerTransport} (each
 * line checked by docs/protocol.md §1.2 "Requests" before it is parsed). The server closes when
 * stdin ends.
 * @example
 * const { closed } = await runStdioServer({ url: "http://localhost:8787", apiKey: "svc_…" });
 * await closed; // the client went away
 * @returns the running server; `closed` settles when it stops.
 * @throws StdioConfigError for a missing URL or credential, or a malformed namespace or RPC URL.
 */
export async function runStdioServer(options: StdioServerOptions): Promise<StdioServerHandle> {
  checkOptions(options, {
    url: "url",
    credential: "apiKey (or token)",
    namespace: "namespace",
    rpcUrl: "rpcUrl",
  });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const client = createClient({
    baseUrl: options.url,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const server = createMemoryMcpServer(
    clientBackend(client, {
      rpcUrl: options.rpcUrl,
      programId: options.programId,
      authority: options.authority,
      logKeys: options.logKeys,
    }),
    {
      namespace: options.namespace,
      onError: (error, tool) => {
        const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        stderr.write(`svc-mcp: ${tool} failed: ${text}\n`);
      },
    },
  );
  const transport = new StrictStdioServerTransport(stdin, stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.onclose = () => resolveClosed();
  const close = async () => {
    stdin.off("end", onEnd);
    await server.close();
    resolveClosed();
  };
  const onEnd = () => {
    void close();
  };
  stdin.once("end", onEnd);
  await server.connect(transport);
  return { server, closed, close };
}

/**
 * The `svc-mcp` command: reads the environment, runs the stdio server until the client closes
 * stdin.
 * @returns the exit code: 0 after a normal close, 2 for a bad configuration (explained on stderr).
 */
export async function main(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let options: StdioServerOptions;
  try {
    options = stdioOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof StdioConfigError) {
      process.stderr.write(`svc-mcp: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const { closed } = await runStdioServer(options);
  await closed;
  return 0;
}

/** Whether this module is the process's entry (`tsx src/stdio.ts`). */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) {
    return false;
  }
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) {
  process.exitCode = await main();
}
