/**
 * `svc mcp`: serves the memory tools (`remember`, `recall`, `list`, `get`, `update`, `history`,
 * `forget`, `prove`, `verify`) to an
 * MCP client over stdio, with the caller's stored credential (`@verifiable-memory/mcp` runStdioServer over
 * `@verifiable-memory/client`). It runs until the client closes its end.
 * @module
 */
import type { Command } from "commander";
import { optionsOf, type Runtime } from "../runtime.js";
import { clientCredential, rpcUrl } from "../session.js";

interface McpOptions {
  readonly namespace?: string;
  readonly rpc?: string;
}

/** Registers `svc mcp [--namespace N] [--rpc URL]`. */
export function registerMcpCommand(program: Command, rt: Runtime): void {
  program
    .command("mcp")
    .description(
      "Serve the memory tools to an MCP client over stdio (remember, recall, list, get, update, history, forget, prove, verify); stdout carries the protocol",
    )
    .option(
      "--namespace <namespace>",
      "confine the server to this namespace: writes land in it, recall sees only it",
    )
    .option(
      "--rpc <url>",
      "Solana JSON-RPC the verify tool reads the commitment from (default: SVC_RPC_URL, `svc login --rpc`, or http://127.0.0.1:8899)",
    )
    .action(async (_options: object, command: Command) => {
      const options = optionsOf<McpOptions>(command);
      const credential = await clientCredential(rt, options);
      // Loaded here, not at start-up: the MCP SDK is most of svc's load time (docs/performance.md).
      const { runStdioServer } = await import("@verifiable-memory/mcp");
      const handle = await runStdioServer({
        url: credential.baseUrl,
        ...(credential.apiKey ? { apiKey: credential.apiKey } : {}),
        ...(credential.token ? { token: credential.token } : {}),
        ...(credential.fetch ? { fetch: credential.fetch } : {}),
        ...(options.namespace ? { namespace: options.namespace } : {}),
        rpcUrl: await rpcUrl(rt, options.rpc),
      });
      await handle.closed;
    });
}
