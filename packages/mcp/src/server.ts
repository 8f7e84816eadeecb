/**
 * `createMemoryMcpServer`: the MCP server of the verifiable memory service (docs/protocol.md §4.9
 * "MCP"), with the tools `remember`, `recall`, `forget`, `prove` and `verify` over a
 * {@link MemoryBackend}. Every result is one JSON text content; refusals are `isError` results
 * carrying the service's error `{ error: { code, message, details? } }`, so the model can act on
 * them.
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { BackendError, type MemoryBackend, type RecallInput, withinNamespace } from "./backend.js";

/** The server's name in the MCP handshake. */
export const SERVER_NAME = "svc-memory";
/** The server's version in the MCP handshake. */
export const SERVER_VERSION = "0.1.0";

/** A namespace: 1–128 characters of `[A-Za-z0-9._:/-]` (docs/protocol.md §4). */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9._:/-]{1,128}$/;

/** Options of {@link createMemoryMcpServer}. */
export interface MemoryMcpServerOptions {
  /**
   * Confines the server to one namespace (a prefix, like an API key's confinement): `remember`
   * writes into it (or under it), `recall` only sees memories under it, and `forget`, `prove`,
   * `verify` treat memories outside it as not found. For a server started for one agent, e.g.
   * `agent:research`. Default: none (the credential's own confinement still applies).
   */
  readonly namespace?: string | undefined;
  /**
   * Called with any error a backend throws that is not a {@link BackendError} (the tool answers
   * `internal` without its message): log it here.
   */
  readonly onError?: ((error: unknown, tool: string) => void) | undefined;
  /** The server's name in the handshake; default {@link SERVER_NAME}. */
  readonly name?: string | undefined;
  /** The server's version in the handshake; default {@link SERVER_VERSION}. */
  readonly version?: string | undefined;
}

/** The server's instructions: what it is and how to use its tools, for the model. */
export const SERVER_INSTRUCTIONS = [
  "Long-term, verifiable memory for this user. Memories are encrypted at rest and appended to the",
  "user's tamper-evident Merkle log (RFC 9162), whose root is periodically anchored on Solana, so",
  "any memory can later be proven to have existed unmodified.",
  "Use `recall` before answering anything that may depend on earlier conversations (preferences,",
  "facts about the user or project, past decisions); use `remember` to keep new durable facts, one",
  "self-contained fact per memory; `forget` what is wrong or what the user asks to forget;",
  "`prove` and `verify` when the user wants evidence that a memory is authentic and untampered.",
].join(" ");

const MemoryIdSchema = z
  .string()
  .min(1)
  .max(128)
  .refine((id) => !id.includes("\u0000"), "must not contain U+0000")
  .describe("The memory's id, as returned by remember or recall");

const NamespaceSchema = z
  .string()
  .regex(NAMESPACE_PATTERN, "1–128 characters of A–Z a–z 0–9 . _ : / -");

const MetadataSchema = z.record(z.string(), z.unknown());

const rememberShape = {
  content: z
    .string()
    .min(1)
    .describe(
      "The memory's text (up to 32 KiB): one self-contained fact, preference, decision or result, " +
        "written so it makes sense on its own later",
    ),
  metadata: MetadataSchema.optional().describe(
    'Optional JSON object of labels to filter on in recall, e.g. {"topic": "preferences", "project": "atlas"} (at most 4 KiB)',
  ),
  namespace: NamespaceSchema.optional().describe(
    "Optional namespace to file it under, e.g. `agent:research/run:42` (1–128 characters of " +
      "A–Z a–z 0–9 . _ : / -); default the server's or the credential's own",
  ),
};

const recallShape = {
  query: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Text to find: a substring every match contains (case-insensitive), or with rank "relevance" ' +
        "the search terms. Omit it to list the most recent memories (optionally filtered)",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .describe("How many memories at most (1–200, default 20)"),
  metadata: MetadataSchema.optional().describe(
    'Optional metadata filter: each key a value to equal, or one operator object {"$in": [..]}, ' +
      '{"$gte": x}, {"$lte": x} (numbers or ISO times) or {"$contains": v} (arrays)',
  ),
  namespace: NamespaceSchema.optional().describe("Only memories of exactly this namespace"),
  rank: z
    .enum(["recency", "relevance"])
    .optional()
    .describe('"recency" (newest first, the default) or "relevance" (BM25 ranking; needs a query)'),
};

const idShape = { id: MemoryIdSchema };

/** A tool's JSON result. */
function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

/** A tool's refusal: the service's error shape, flagged `isError`. */
function errorResult(code: string, message: string, details?: unknown): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: JSON.stringify(
          { error: { code, message, ...(details === undefined ? {} : { details }) } },
          null,
          2,
        ),
      },
    ],
  };
}

/**
 * Builds an MCP server whose tools act on `backend`: `remember` `{ content, metadata?,
 * namespace? }`, `recall` `{ query?, limit?, metadata?, namespace?, rank? }`, `forget` `{ id }`,
 * `prove` `{ id }` and `verify` `{ id }`. Connect it to a transport (`server.connect(transport)`):
 * stdio (`runStdioServer`) or Streamable HTTP (core-api's `POST /mcp`).
 * @param backend the caller's memory operations ({@link clientBackend}, or core-api's in-process one).
 * @param options `namespace` confines the server to one namespace prefix; `onError` sees
 *   unexpected errors.
 * @throws TypeError when `options.namespace` is not a valid namespace.
 */
export function createMemoryMcpServer(
  backend: MemoryBackend,
  options: MemoryMcpServerOptions = {},
): McpServer {
  const confinedTo = options.namespace;
  if (confinedTo !== undefined && !NAMESPACE_PATTERN.test(confinedTo)) {
    throw new TypeError(
      `namespace must be 1–128 characters of A–Z a–z 0–9 . _ : / -, got ${JSON.stringify(confinedTo)}`,
    );
  }
  const server = new McpServer(
    { name: options.name ?? SERVER_NAME, version: options.version ?? SERVER_VERSION },
    { instructions: SERVER_INSTRUCTIONS },
  );
  const confinement =
    confinedTo === undefined ? "" : ` This server is confined to namespace \`${confinedTo}\`.`;

  /** Runs a tool body, turning refusals into error results and hiding unexpected errors. */
  async function run(tool: string, body: () => Promise<unknown>): Promise<CallToolResult> {
    try {
      return jsonResult(await body());
    } catch (error) {
      if (error instanceof BackendError) {
        return errorResult(error.code, error.message, error.details);
      }
      options.onError?.(error, tool);
      return errorResult("internal", "internal error: the operation failed; try again later");
    }
  }

  /** A refusal for a namespace outside the server's confinement. */
  function outsideConfinement(namespace: string): BackendError {
    return new BackendError(
      "forbidden",
      `namespace ${JSON.stringify(namespace)} is outside this server's namespace ${JSON.stringify(confinedTo)}`,
      [{ path: ["namespace"], message: `must start with ${JSON.stringify(confinedTo)}` }],
    );
  }

  server.registerTool(
    "remember",
    {
      title: "Remember",
      description:
        "Store a memory for later: a durable fact, user preference, decision or result worth " +
        "keeping across conversations. The text is encrypted at rest and appended to the user's " +
        "tamper-evident Merkle log, which is periodically anchored on the Solana chain, so the " +
        "memory can later be proven (prove) and checked against the chain (verify). Store one " +
        "self-contained fact per call; put labels to filter on later in `metadata`. Returns the " +
        "memory's `id` (keep it to forget, prove or verify it) and `anchored: false` until the " +
        `next anchoring.${confinement}`,
      inputSchema: rememberShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) =>
      run("remember", async () => {
        const namespace = args.namespace ?? confinedTo;
        if (namespace !== undefined && !withinNamespace(namespace, confinedTo)) {
          throw outsideConfinement(namespace);
        }
        const stored = await backend.remember({
          content: args.content,
          metadata: args.metadata,
          namespace,
        });
        return {
          id: stored.id,
          namespace: stored.namespace,
          metadata: stored.metadata,
          createdAt: stored.createdAt,
          leafIndex: stored.leafIndex,
          leafHash: stored.leafHash,
          anchored: stored.anchored,
          message:
            "Stored encrypted and appended to the Merkle log; it becomes provable on chain " +
            "(anchored: true) at the next anchoring.",
        };
      }),
  );

  server.registerTool(
    "recall",
    {
      title: "Recall",
      description:
        "Search the user's stored memories. Use it before answering anything that may depend on " +
        "what was learned earlier (preferences, facts about the user or project, past " +
        "decisions). `query` is a substring to find (case-insensitive), or search terms with " +
        '`rank: "relevance"`; `metadata` and `namespace` filter. Without a query or filter it ' +
        "returns the most recent memories. Returns the decrypted memories, newest first (or by " +
        "relevance), each with its `id` and `anchored` (true once its inclusion in the root " +
        `committed on chain can be proven).${confinement}`,
      inputSchema: recallShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run("recall", async () => {
        if (args.namespace !== undefined && !withinNamespace(args.namespace, confinedTo)) {
          throw outsideConfinement(args.namespace);
        }
        const input: RecallInput = {
          query: args.query,
          limit: args.limit,
          metadata: args.metadata,
          namespace: args.namespace,
          namespacePrefix: args.namespace === undefined ? confinedTo : undefined,
          rank: args.rank,
        };
        const filtered =
          input.metadata !== undefined ||
          input.namespace !== undefined ||
          input.namespacePrefix !== undefined;
        // The API wants a query or a filter; "everything since the epoch" lists the latest ones.
        const result = await backend.recall(
          input.query === undefined && !filtered
            ? { ...input, createdAfter: "1970-01-01T00:00:00.000Z" }
            : input,
        );
        return {
          count: result.items.length,
          more: result.more,
          items: result.items.map((item) => ({
            id: item.id,
            content: item.content,
            metadata: item.metadata,
            namespace: item.namespace,
            createdAt: item.createdAt,
            anchored: item.anchored,
            ...(item.score === undefined ? {} : { score: item.score }),
          })),
        };
      }),
  );

  server.registerTool(
    "forget",
    {
      title: "Forget",
      description:
        "Delete a memory by id, when it is wrong or outdated or the user asks to forget it. Its " +
        "encrypted content is destroyed for good; its leaf stays in the Merkle log, so the " +
        "deletion is visible to auditors and the other memories' proofs stay valid. To correct a " +
        `memory, remember the corrected fact and forget the old one.${confinement}`,
      inputSchema: idShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      run("forget", async () => {
        await backend.forget(args.id, { confinedTo });
        return {
          id: args.id,
          forgotten: true,
          message:
            "The content is destroyed; the leaf stays in the log (the deletion is detectable).",
        };
      }),
  );

  server.registerTool(
    "prove",
    {
      title: "Prove",
      description:
        "Get the cryptographic proof bundle of a memory by id: its leaf in the user's RFC 9162 " +
        "Merkle log, the inclusion proof up to the latest root anchored on Solana, and the " +
        "anchoring transaction. Use it when the user wants evidence that a memory existed " +
        "unmodified, or to hand it to a third party (who can check it offline against the chain " +
        "with svc-verify). `anchored: false` means it is not on chain yet: try again after the " +
        `next anchoring. To have it checked now, use verify.${confinement}`,
      inputSchema: idShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run("prove", async () => {
        const bundle = await backend.prove(args.id, { confinedTo });
        return {
          id: args.id,
          anchored: bundle.anchored,
          message: bundle.anchored
            ? "The memory is covered by a root anchored on chain; the bundle proves it."
            : "Not anchored yet: the bundle has no checkpoint or inclusion proof until the next anchoring.",
          bundle,
        };
      }),
  );

  server.registerTool(
    "verify",
    {
      title: "Verify",
      description:
        "Check a memory by id against the Solana chain: whether its inclusion proof leads to the " +
        "root committed on chain for this user (and, where the content is checked, that the text " +
        "matches the committed hash). Returns `verified` (true/false), `anchored`, and when not " +
        "verified a `reason`: `not_anchored` (not on chain yet — retry after the next " +
        "anchoring), `chain_unavailable` (unknown: the chain could not be read), or a failed " +
        "check such as `proof_invalid`, `root_mismatch` or `content_mismatch` (tampering or a " +
        "fault). Use it when the user wants assurance that a memory is authentic and " +
        `untampered.${confinement}`,
      inputSchema: idShape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args) =>
      run("verify", async () => {
        const result = await backend.verify(args.id, { confinedTo });
        return { id: args.id, ...result };
      }),
  );

  return server;
}
