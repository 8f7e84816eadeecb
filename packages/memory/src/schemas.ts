/**
 * Request and response schemas of the memory routes of both APIs (docs/protocol.md §1 limits, §4, §6,
 * §1). The zod schemas that validate requests are the ones published at `/openapi.json`.
 * @module
 */
import { z } from "@hono/zod-openapi";
import canonicalizeModule from "canonicalize";
import type { SearchInput } from "./memories.js";
import { metadataFilterProblem } from "./memory-filter.js";

// canonicalize is CommonJS with an ES default export in its typings (see @verifiable-memory/verifier leaf.ts).
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** Most UTF-8 bytes of a memory's content (docs/protocol.md §1). */
export const MAX_CONTENT_BYTES = 32_768;
/** Most bytes of a memory's metadata once canonicalised (RFC 8785; docs/protocol.md §1). */
export const MAX_METADATA_BYTES = 4096;
/** Metadata keys: 1 to 64 characters (docs/protocol.md §1), at every depth. */
export const MAX_METADATA_KEY_CHARS = 64;
/** Most memories of one `POST /memories/batch` (docs/protocol.md §4). */
export const MAX_BATCH_ITEMS = 256;
/** The body limit of `POST /memories/batch`, 1 MiB (the other routes keep 256 KiB). */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` is well-formed Unicode (no lone surrogate). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * `__proto__` is refused as a metadata key at any depth: JavaScript object assignment treats it
 * as the prototype, so a parser on either side could drop it and commit a leaf that differs from
 * the request.
 */
const PROTO_KEY = "__proto__";
const PROTO_KEY_MESSAGE = 'metadata keys must not be "__proto__"';

/**
 * The first reason `value` is not acceptable memory metadata, or null: a JSON object whose keys
 * (at every depth) have 1–64 characters, whose strings are well-formed and free of U+0000, whose
 * numbers are finite, and whose RFC 8785 form is at most 4 096 UTF-8 bytes.
 */
export function metadataProblem(value: Record<string, unknown>): string | null {
  const problem = jsonProblem(value, 0);
  if (problem) {
    return problem;
  }
  const canonical = canonicalize(value);
  if (canonical === undefined || Buffer.byteLength(canonical, "utf8") > MAX_METADATA_BYTES) {
    return `metadata must be at most ${MAX_METADATA_BYTES} bytes once canonicalised (RFC 8785)`;
  }
  return null;
}

function jsonProblem(value: unknown, depth: number): string | null {
  if (depth > 32) {
    return "metadata is nested too deeply";
  }
  if (typeof value === "string") {
    if (!isWellFormedText(value)) {
      return "metadata strings must be well-formed Unicode";
    }
    return value.includes("\u0000") ? "metadata strings must not contain U+0000" : null;
  }
  if (typeof value === "number") {
    return Number.isFinite(value) ? null : "metadata numbers must be finite";
  }
  if (value === null || typeof value === "boolean") {
    return null;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  if (typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.length < 1 || key.length > MAX_METADATA_KEY_CHARS) {
        return `metadata keys must have 1 to ${MAX_METADATA_KEY_CHARS} characters`;
      }
      if (!isWellFormedText(key) || key.includes("\u0000")) {
        return "metadata keys must be well-formed Unicode without U+0000";
      }
      if (key === PROTO_KEY) {
        return PROTO_KEY_MESSAGE;
      }
      const problem = jsonProblem(item, depth + 1);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  return "metadata must hold JSON values only";
}

/** A metadata object (docs/protocol.md §1, §4). */
export const MetadataSchema = z
  .preprocess(
    (value, ctx) => {
      // zod's record skips an own "__proto__" key: refuse it before it can be dropped.
      if (value !== null && typeof value === "object" && Object.hasOwn(value, PROTO_KEY)) {
        ctx.addIssue({ code: "custom", path: [PROTO_KEY], message: PROTO_KEY_MESSAGE });
      }
      return value;
    },
    z.record(z.string(), z.unknown()),
  )
  .superRefine((value, ctx) => {
    const problem = metadataProblem(value);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
    }
  })
  .openapi("Metadata", {
    description: "A JSON object, at most 4 096 bytes as RFC 8785 canonical JSON; keys 1–64 chars",
    example: { source: "notes.md", section: "intro" },
  });

/** Memory content: 1 to 32 768 UTF-8 bytes of well-formed Unicode. */
export const ContentSchema = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    if (!isWellFormedText(value)) {
      ctx.addIssue({ code: "custom", message: "content must be well-formed Unicode" });
    } else if (Buffer.byteLength(value, "utf8") > MAX_CONTENT_BYTES) {
      ctx.addIssue({
        code: "custom",
        message: `content must be at most ${MAX_CONTENT_BYTES} UTF-8 bytes`,
      });
    }
  })
  .openapi({
    description: `1 to ${MAX_CONTENT_BYTES} UTF-8 bytes of well-formed Unicode (no lone surrogate)`,
    example: "The user prefers dark mode and answers in French.",
  });

/** A namespace (docs/protocol.md §4): 1–128 characters of `[A-Za-z0-9._:/-]`. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9._:/-]{1,128}$/;

/** A memory's namespace, or a namespace prefix. */
export const NamespaceSchema = z
  .string()
  .regex(NAMESPACE_PATTERN, "1–128 characters of A–Z a–z 0–9 . _ : / -")
  .openapi({
    description: "1–128 characters of `[A-Za-z0-9._:/-]`, e.g. `agent:research/run:42`",
    example: "agent:research/run:42",
  });

/** `POST /memories` body (and each item of a batch, and `PUT /memories/:id`). */
export const CreateMemoryBodySchema = z.strictObject({
  content: ContentSchema,
  metadata: MetadataSchema.optional(),
  namespace: NamespaceSchema.optional().openapi({
    description:
      "committed in the leaf; default: the API key's namespace confinement, or none (for PUT: the superseded memory's)",
  }),
});

/** `POST /memories/batch` body: 1 to 256 memories, each exactly a `POST /memories` body. */
export const CreateMemoriesBodySchema = z.strictObject({
  items: z.array(CreateMemoryBodySchema).min(1).max(MAX_BATCH_ITEMS),
});

/**
 * A metadata filter of recall (docs/protocol.md §4.5 "Recall"): per top-level key, a value matched
 * by deep equality, or an operator object (`$in`, `$gte`, `$lte`, `$contains`, all of those given
 * must hold). An unknown operator or a wrong operand is refused, naming the key, rather than
 * matching nothing in silence.
 */
export const MetadataFilterSchema = MetadataSchema.superRefine((value, ctx) => {
  const problem = metadataFilterProblem(value);
  if (problem) {
    ctx.addIssue({ code: "custom", path: [problem.key], message: problem.message });
  }
}).openapi("MetadataFilter", {
  description:
    'key → value (deep equality) or operators: { "$in": [..] }, { "$gte": n | ISO time }, { "$lte": n | ISO time }, { "$contains": scalar } (arrays)',
  example: { topic: "billing", importance: { $gte: 3 }, tags: { $contains: "urgent" } },
});

/** An ISO 8601 time with an offset (`2026-11-25T08:00:00.000Z`). */
const IsoTimeSchema = z.iso.datetime({ offset: true });

/** `POST /memories/search` body. */
export const SearchBodySchema = z
  .strictObject({
    query: ContentSchema.optional().openapi({
      description:
        "recency: a substring every match holds; relevance: the terms to score. Optional when a filter is given",
    }),
    limit: z.number().int().min(1).max(200).default(20),
    caseSensitive: z.boolean().default(false),
    metadata: MetadataFilterSchema.optional(),
    namespace: NamespaceSchema.optional(),
    namespacePrefix: NamespaceSchema.optional(),
    createdAfter: IsoTimeSchema.optional(),
    createdBefore: IsoTimeSchema.optional(),
    rank: z.enum(["recency", "relevance"]).default("recency"),
    includeSuperseded: z.boolean().default(false),
    cursor: z.string().min(1).max(512).optional(),
  })
  .superRefine((body, ctx) => {
    const filtered =
      body.metadata !== undefined ||
      body.namespace !== undefined ||
      body.namespacePrefix !== undefined ||
      body.createdAfter !== undefined ||
      body.createdBefore !== undefined;
    if (body.query === undefined && !filtered) {
      ctx.addIssue({
        code: "custom",
        path: ["query"],
        message: "query is required unless a metadata, namespace or time filter is given",
      });
    }
    if (body.rank === "relevance" && body.query === undefined) {
      ctx.addIssue({ code: "custom", path: ["query"], message: "relevance ranking needs a query" });
    }
  });

/** A validated `POST /memories/search` body. */
export type SearchBody = z.infer<typeof SearchBodySchema>;

/**
 * The extension API's `POST /memories` body (docs/protocol.md §9.4 "Routes with the token"):
 * content and metadata; no namespace.
 */
export const ExtensionCreateMemoryBodySchema = CreateMemoryBodySchema.pick({
  content: true,
  metadata: true,
});

/**
 * The extension API's `POST /memories/search` body (docs/protocol.md §9.4 "Routes with the
 * token"): a substring, case sensitivity, a metadata filter and a limit; newest first, one page
 * (no namespace, time filter, rank or cursor).
 */
export const ExtensionSearchBodySchema = z
  .strictObject({
    query: ContentSchema.optional().openapi({
      description: "a substring every match holds. Optional when a metadata filter is given",
    }),
    limit: z.number().int().min(1).max(200).default(20),
    caseSensitive: z.boolean().default(false),
    metadata: MetadataFilterSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.query === undefined && body.metadata === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["query"],
        message: "query is required unless a metadata filter is given",
      });
    }
  });

/** A validated extension API `POST /memories/search` body. */
export type ExtensionSearchBody = z.infer<typeof ExtensionSearchBodySchema>;

/** The search request of a validated body (times as Dates). */
export function searchInputOf(body: SearchBody): SearchInput {
  return {
    ...body,
    createdAfter: body.createdAfter === undefined ? undefined : new Date(body.createdAfter),
    createdBefore: body.createdBefore === undefined ? undefined : new Date(body.createdBefore),
  };
}

/** Who wrote a memory (committed in version-2 leaves). */
export const WriterSchema = z
  .union([
    z.object({ kind: z.literal("session") }),
    z.object({ kind: z.literal("api_key"), keyId: z.string() }),
  ])
  .openapi("Writer");

/** A memory (docs/protocol.md §4). */
export const MemorySchema = z
  .object({
    id: z.string(),
    leafIndex: z.number().int(),
    leafHash: z.string().openapi({ description: "lowercase hex SHA-256(0x00 ‖ leafData)" }),
    content: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    namespace: z.string().nullable(),
    writtenBy: WriterSchema.nullable().openapi({
      description: "who wrote it (committed in the leaf); null on version-1 leaves",
    }),
    supersedes: z.string().nullable().openapi({ description: "the memory this one updates" }),
    supersededBy: z.string().nullable().openapi({
      description: "the memory that updated this one; null while current",
    }),
    createdAt: z.string(),
    anchored: z.boolean(),
    score: z.number().optional().openapi({ description: "BM25 score (rank: relevance only)" }),
  })
  .openapi("Memory");

/** `POST /memories` answer. */
export const CreatedMemorySchema = MemorySchema.omit({ content: true, score: true }).openapi(
  "CreatedMemory",
);

/** `POST /memories/batch` answer: the created memories in request order. */
export const CreatedMemoriesSchema = z
  .object({ items: z.array(CreatedMemorySchema) })
  .openapi("CreatedMemories");

const leafCommonFields = {
  memoryId: z.string(),
  owner: z.string(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  contentHash: z.string(),
};

/** The leaf data object (docs/protocol.md §5.1 "Leaf data"), version 1 or 2. */
export const LeafDataSchema = z
  .union([
    z.object({ v: z.literal(1), ...leafCommonFields }).openapi("LeafDataV1"),
    z
      .object({
        v: z.literal(2),
        ...leafCommonFields,
        namespace: z.string().nullable(),
        writtenBy: WriterSchema,
        supersedes: z.string().nullable(),
      })
      .openapi("LeafDataV2"),
  ])
  .openapi("LeafData");

/** The commitment account fields proofs and verify answers name (docs/protocol.md §6). */
const commitmentFields = {
  cluster: z.string(),
  programId: z.string(),
  account: z.string(),
  memoryCount: z.number().int(),
  nonce: z.number().int(),
};

/** A proof bundle (docs/protocol.md §6). */
export const ProofBundleSchema = z
  .object({
    memoryId: z.string(),
    leafIndex: z.number().int(),
    leafHash: z.string(),
    leafData: LeafDataSchema,
    salt: z.string().openapi({ description: "the 16-byte salt, standard base64" }),
    anchored: z.boolean(),
    checkpoint: z.object({ treeSize: z.number().int(), rootHash: z.string() }).nullable(),
    inclusionProof: z.array(z.string()).nullable(),
    anchor: z.object({ ...commitmentFields, signature: z.string() }).nullable(),
  })
  .openapi("ProofBundle");

/** `GET /memories/:id/verify` answer (docs/protocol.md §6): the outcome and the account checked. */
export const VerifyResultSchema = z
  .object({
    verified: z.boolean(),
    reason: z.enum(["not_anchored", "root_mismatch", "proof_invalid"]).nullable(),
    checkedAgainst: z.object({ ...commitmentFields, rootHash: z.string() }).nullable(),
  })
  .openapi("VerifyResult");

/** `POST /memories/search` answer. */
export const SearchResultSchema = z
  .object({
    items: z.array(MemorySchema),
    scanned: z.number().int().openapi({ description: "live memories examined" }),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "pass as `cursor` for the next page" }),
  })
  .openapi("SearchResult");

/** The extension API's `POST /memories/search` answer: one page, no cursor. */
export const ExtensionSearchResultSchema = SearchResultSchema.pick({
  items: true,
  scanned: true,
}).openapi("ExtensionSearchResult");

/** A memory with its proof bundle (grants, history). */
export const MemoryWithProofSchema = MemorySchema.extend({ proof: ProofBundleSchema }).openapi(
  "MemoryWithProof",
);

/** `GET /memories/:id/history` answer: every live version, oldest first, each with its proof. */
export const MemoryHistorySchema = z
  .object({ items: z.array(MemoryWithProofSchema) })
  .openapi("MemoryHistory");
