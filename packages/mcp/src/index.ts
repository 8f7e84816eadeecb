/**
 * `@verifiable-memory/mcp`: the MCP server of the verifiable memory service (docs/protocol.md §4.9
 * "MCP"). The tools `remember`, `recall`, `list`, `get`, `update`, `history`, `forget`, `prove`
 * and `verify` over a
 * {@link MemoryBackend}: over `@verifiable-memory/client` for the stdio server ({@link
 * runStdioServer}, the `svc-mcp` bin), or over core-api's in-process services for its `POST /mcp`
 * endpoint.
 * @module
 */

export { NAMESPACE_PATTERN } from "@verifiable-memory/memory-schemas";
export {
  BackendError,
  type IdOptions,
  type MemoryBackend,
  type Metadata,
  type ProofBundle,
  type RecalledMemory,
  type RecallInput,
  type RecallResult,
  type RememberInput,
  type StoredMemory,
  type VerifyResult,
  withinNamespace,
} from "./backend.js";
export { type ClientBackendOptions, clientBackend } from "./client-backend.js";
export {
  createMemoryMcpServer,
  type MemoryMcpServerOptions,
  SERVER_INSTRUCTIONS,
  SERVER_NAME,
  SERVER_VERSION,
  toolInputSchema,
} from "./server.js";
export {
  main,
  runStdioServer,
  STDIO_ENV,
  StdioConfigError,
  type StdioServerHandle,
  type StdioServerOptions,
  stdioOptionsFromEnv,
} from "./stdio.js";
export { StrictStdioServerTransport, strictRefusalAnswer } from "./strict-stdio-transport.js";
export {
  IdArgumentsSchema,
  ListArgumentsSchema,
  MEMORY_TOOLS,
  type MemoryTool,
  type ToolContext,
  UpdateArgumentsSchema,
} from "./tools.js";
