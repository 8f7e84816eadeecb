/**
 * The MCP tools of the memory service (docs/protocol.md §4.9 "MCP"): `remember`, `recall`, `list`,
 * `get`, `update`, `history`, `forget`, `prove` and `verify`. Each tool's arguments are validated by
 * the schema of its REST route (`@verifiable-memory/memory-schemas`), so a tool refuses exactly what
 * the route refuses (unknown arguments included), with the same `invalid_request` details; its
 * listed JSON Schema is that schema's, with a description for every parameter.
 * @module
 */
import {
  CreateMemoryBodySchema,
  PathIdSchema,
  SearchBodySchema,
  SearchFieldsSchema,
} from "@verifiable-memory/memory-schemas";
import { z } from "zod";
import {
  BackendError,
  type IdOptions,
  type MemoryBackend,
  type RecalledMemory,
  type RecallInput,
  withinNamespace,
} from "./backend.js";

/** What a tool's body gets besides its arguments. */
export interface ToolContext {
  readonly backend: MemoryBackend;
  /** The server's namespace confinement (a prefix), if any. */
  readonly confinedTo: string | undefined;
}

/** One tool: its listing and its body over validated arguments. */
export interface MemoryTool {
  readonly name: string;
  readonly title: string;
  /** For the model: what the tool does and when to use it. */
  readonly description: string;
  /** The REST route's schema (or one built from its fields) that validates the arguments. */
  readonly schema: z.ZodType<Record<string, unknown>>;
  /** A description of every parameter, for the listed JSON Schema. */
  readonly parameters: Readonly<Record<string, string>>;
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
  /** Runs the tool on arguments `schema` accepted. */
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** `{ id }`, a memory id as the routes' `:id`. */
export const IdArgumentsSchema = z.strictObject({ id: PathIdSchema });

/** `update`'s arguments: the memory's id and a `PUT /memories/:id` body. */
export const UpdateArgumentsSchema = z.strictObject({
  id: PathIdSchema,
  ...CreateMemoryBodySchema.shape,
});

/**
 * `list`'s arguments: `POST /memories/search` without a query (so without `rank` or
 * `caseSensitive`): newest first, filtered by namespace, metadata and time.
 */
export const ListArgumentsSchema = SearchFieldsSchema.omit({
  query: true,
  rank: true,
  caseSensitive: true,
});

const ID = "The memory's id, as returned by remember, recall, list or get";
const CONTENT =
  "The memory's text (1–32 768 UTF-8 bytes): one self-contained fact, preference, decision or " +
  "result, written so it makes sense on its own later";
const METADATA =
  'A JSON object of labels to filter on later, e.g. {"topic": "preferences", "project": "atlas"} ' +
  '(at most 4 096 bytes as canonical JSON; keys of 1–64 characters, never "__proto__")';
const FILTER =
  'Metadata filter: each key a value to equal, or an operator object {"$in": [..]}, ' +
  '{"$gte": x}, {"$lte": x} (numbers or ISO times) or {"$contains": v} (arrays)';
const NAMESPACE_WRITE =
  "The namespace to file it under, e.g. `agent:research/run:42` (1–128 characters of A–Z a–z " +
  "0–9 . _ : / -); default the server's or the credential's own";
const FILTERS = {
  limit: "How many memories at most (1–200, default 20)",
  metadata: FILTER,
  namespace: "Only memories of exactly this namespace",
  namespacePrefix: "Only memories whose namespace starts with this",
  createdAfter:
    "Only memories created strictly after this ISO 8601 time, e.g. 2026-11-25T08:00:00Z",
  createdBefore: "Only memories created strictly before this ISO 8601 time",
  includeSuperseded: "Also versions replaced by update (default false: current versions only)",
  cursor: "The nextCursor of the previous answer, to read the next page",
} as const;

/** A memory as the tools report it. */
function reported(item: RecalledMemory) {
  return {
    id: item.id,
    content: item.content,
    metadata: item.metadata,
    namespace: item.namespace,
    createdAt: item.createdAt,
    anchored: item.anchored,
    supersedes: item.supersedes,
    supersededBy: item.supersededBy,
    ...(item.score === undefined ? {} : { score: item.score }),
  };
}

/** A refusal for a namespace outside the server's confinement. */
function outsideConfinement(namespace: string, confinedTo: string | undefined): BackendError {
  return new BackendError(
    "forbidden",
    `namespace ${JSON.stringify(namespace)} is outside this server's namespace ${JSON.stringify(confinedTo)}`,
    [{ path: ["namespace"], message: `must start with ${JSON.stringify(confinedTo)}` }],
  );
}

/** The namespace a write goes to: the argument or the confinement, refused outside it. */
function writeNamespace(
  namespace: string | undefined,
  confinedTo: string | undefined,
): string | undefined {
  const chosen = namespace ?? confinedTo;
  if (chosen !== undefined && !withinNamespace(chosen, confinedTo)) {
    throw outsideConfinement(chosen, confinedTo);
  }
  return chosen;
}

/**
 * A search narrowed to the server's confinement: `namespace` must lie in it; `namespacePrefix`
 * is narrowed to it (refused when they do not overlap); with neither, the confinement applies.
 */
function confinedSearch(input: RecallInput, confinedTo: string | undefined): RecallInput {
  if (confinedTo === undefined) {
    return input;
  }
  if (input.namespace !== undefined && !withinNamespace(input.namespace, confinedTo)) {
    throw outsideConfinement(input.namespace, confinedTo);
  }
  const prefix = input.namespacePrefix;
  if (prefix === undefined || confinedTo.startsWith(prefix)) {
    return input.namespace === undefined ? { ...input, namespacePrefix: confinedTo } : input;
  }
  if (!withinNamespace(prefix, confinedTo)) {
    throw outsideConfinement(prefix, confinedTo);
  }
  return input;
}

/** A page of memories as `recall` and `list` answer it. */
async function searchPage(input: RecallInput, context: ToolContext) {
  const result = await context.backend.recall(confinedSearch(input, context.confinedTo));
  return {
    count: result.items.length,
    nextCursor: result.nextCursor,
    items: result.items.map(reported),
  };
}

/** The id options of a lookup under the server's confinement. */
function idOptions(context: ToolContext): IdOptions {
  return { confinedTo: context.confinedTo };
}

/** The tools, in the order they are listed. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  {
    name: "remember",
    title: "Remember",
    description:
      "Store a memory for later: a durable fact, user preference, decision or result worth " +
      "keeping across conversations. The text is encrypted at rest and appended to the user's " +
      "tamper-evident Merkle log, which is periodically anchored on the Solana chain, so the " +
      "memory can later be proven (prove) and checked against the chain (verify). Store one " +
      "self-contained fact per call; put labels to filter on later in `metadata`. To correct or " +
      "refine a memory you already stored, use update instead. Returns the memory's `id` and " +
      "`anchored: false` until the next anchoring.",
    schema: CreateMemoryBodySchema,
    parameters: { content: CONTENT, metadata: METADATA, namespace: NAMESPACE_WRITE },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(args, context) {
      const input = args as z.infer<typeof CreateMemoryBodySchema>;
      const stored = await context.backend.remember({
        ...input,
        namespace: writeNamespace(input.namespace, context.confinedTo),
      });
      return {
        ...stored,
        message:
          "Stored encrypted and appended to the Merkle log; it becomes provable on chain " +
          "(anchored: true) at the next anchoring.",
      };
    },
  },
  {
    name: "recall",
    title: "Recall",
    description:
      "Search the user's stored memories. Use it before answering anything that may depend on " +
      "what was learned earlier (preferences, facts about the user or project, past decisions). " +
      '`query` is a substring to find (case-insensitive by default), or search terms with `rank: "relevance"` ' +
      '(or by meaning with `"semantic"` or `"hybrid"`, when the service has an embedding model); ' +
      "`metadata`, `namespace` and the time range filter. Returns the decrypted memories, newest " +
      "first (or by rank), each with its `id` and `anchored`; `nextCursor` reads the next page. " +
      "To browse without a query, use list.",
    schema: SearchBodySchema,
    parameters: {
      query:
        "Text to find: a substring every match contains, or with another rank the search terms or meaning. " +
        "May be omitted only when a filter is given",
      caseSensitive: "Match the query's case exactly (default false)",
      rank:
        '"recency" (newest first, the default), "relevance" (BM25 ranking), "semantic" (by meaning) or ' +
        '"hybrid" (both fused); all but "recency" need a query',
      ...FILTERS,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (args, context) => searchPage(args as RecallInput, context),
  },
  {
    name: "list",
    title: "List",
    description:
      "List the user's memories, newest first, without a query: everything, or only a namespace " +
      "(`namespace`, `namespacePrefix`), metadata labels (`metadata`) or a time range. Returns " +
      "one page of decrypted memories and `nextCursor` for the next page (null on the last).",
    schema: ListArgumentsSchema,
    parameters: FILTERS,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run(args, context) {
      const input = args as z.infer<typeof ListArgumentsSchema>;
      const filtered =
        input.metadata !== undefined ||
        input.namespace !== undefined ||
        input.namespacePrefix !== undefined ||
        input.createdAfter !== undefined ||
        input.createdBefore !== undefined ||
        context.confinedTo !== undefined;
      // The search route wants a query or a filter: "created since the epoch" selects them all.
      return searchPage(
        {
          ...input,
          rank: "recency",
          caseSensitive: false,
          ...(filtered ? {} : { createdAfter: "1970-01-01T00:00:00.000Z" }),
        },
        context,
      );
    },
  },
  {
    name: "get",
    title: "Get",
    description:
      "Read one memory by id: its text, metadata, namespace, creation time, whether it is " +
      "anchored, and the versions it updates (`supersedes`) or that updated it (`supersededBy`).",
    schema: IdArgumentsSchema,
    parameters: { id: ID },
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, context) {
      return reported(await context.backend.get(args.id as string, idOptions(context)));
    },
  },
  {
    name: "update",
    title: "Update",
    description:
      "Correct or refine a memory: writes a new version with the given text (and metadata), " +
      "which replaces it in recall and list. The old version is kept, readable through history " +
      "and still provable, so the change itself is on the record. Returns the new version's " +
      "`id` (`supersedes` names the old one). Refused with `conflict` when the memory was " +
      "already updated or forgotten: update its latest version.",
    schema: UpdateArgumentsSchema,
    parameters: {
      id: ID,
      content: CONTENT,
      metadata: `${METADATA}; default none`,
      namespace:
        "The new version's namespace (1–128 characters of A–Z a–z 0–9 . _ : / -); default the old version's",
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(args, context) {
      const { id, ...body } = args as z.infer<typeof UpdateArgumentsSchema>;
      if (body.namespace !== undefined) {
        writeNamespace(body.namespace, context.confinedTo);
      }
      const stored = await context.backend.update(id, body, idOptions(context));
      return {
        ...stored,
        message:
          "Stored as a new version; the old one stays in history and in the Merkle log, marked superseded.",
      };
    },
  },
  {
    name: "history",
    title: "History",
    description:
      "Every version of a memory still held, oldest first: how a fact was corrected over time. " +
      "Give the id of any version. Each version has its own `id` (prove or verify it).",
    schema: IdArgumentsSchema,
    parameters: { id: ID },
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, context) {
      const versions = await context.backend.history(args.id as string, idOptions(context));
      return { count: versions.length, items: versions.map(reported) };
    },
  },
  {
    name: "forget",
    title: "Forget",
    description:
      "Delete a memory by id, when the user asks to forget it or it no longer applies at all. " +
      "Its encrypted content is destroyed for good; its leaf stays in the Merkle log, so the " +
      "deletion is visible to auditors and the other memories' proofs stay valid. To correct a " +
      "memory, use update instead (it keeps the history).",
    schema: IdArgumentsSchema,
    parameters: { id: ID },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    async run(args, context) {
      await context.backend.forget(args.id as string, idOptions(context));
      return {
        id: args.id,
        forgotten: true,
        message:
          "The content is destroyed; the leaf stays in the log (the deletion is detectable).",
      };
    },
  },
  {
    name: "prove",
    title: "Prove",
    description:
      "Get the cryptographic proof bundle of a memory by id: its leaf in the user's RFC 9162 " +
      "Merkle log, the inclusion proof up to the latest root anchored on Solana, and the " +
      "anchoring transaction. Use it when the user wants evidence that a memory existed " +
      "unmodified, or to hand it to a third party (who can check it offline against the chain " +
      "with svc-verify). `anchored: false` means it is not on chain yet: try again after the " +
      "next anchoring. To have it checked now, use verify.",
    schema: IdArgumentsSchema,
    parameters: { id: ID },
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, context) {
      const bundle = await context.backend.prove(args.id as string, idOptions(context));
      return {
        id: args.id,
        anchored: bundle.anchored,
        message: bundle.anchored
          ? "The memory is covered by a root anchored on chain; the bundle proves it."
          : "Not anchored yet: the bundle has no checkpoint or inclusion proof until the next anchoring.",
        bundle,
      };
    },
  },
  {
    name: "verify",
    title: "Verify",
    description:
      "Check a memory by id against the Solana chain: whether its inclusion proof leads to the " +
      "root committed on chain for this user (and, where the content is checked, that the text " +
      "matches the committed hash). Returns `verified` (true/false), `anchored`, and when not " +
      "verified a `reason`: `not_anchored` (not on chain yet — retry after the next " +
      "anchoring), `chain_unavailable` (unknown: the chain could not be read), or a failed " +
      "check such as `proof_invalid`, `root_mismatch` or `content_mismatch` (tampering or a " +
      "fault). Use it when the user wants assurance that a memory is authentic and untampered.",
    schema: IdArgumentsSchema,
    parameters: { id: ID },
    annotations: { readOnlyHint: true, openWorldHint: true },
    async run(args, context) {
      const result = await context.backend.verify(args.id as string, idOptions(context));
      return { id: args.id, ...result };
    },
  },
];
