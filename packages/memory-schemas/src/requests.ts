/**
 * The request bodies of the memory routes (docs/protocol.md §4 "Memories and encryption"): what `POST /memories`,
 * `PUT /memories/:id`, `POST /memories/batch` and `POST /memories/search` accept, and a memory id.
 * The REST routes and the MCP tools validate with these same schemas, so both refuse the same
 * arguments with the same `invalid_request` details.
 * @module
 */
import { z } from "@hono/zod-openapi";
import {
  isWellFormedText,
  MAX_BATCH_ITEMS,
  MAX_CONTENT_BYTES,
  MetadataFilterSchema,
  MetadataSchema,
} from "./metadata.js";
import { CursorSchema } from "./query.js";

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

/** A validated `POST /memories` (or `PUT /memories/:id`) body. */
export type CreateMemoryBody = z.infer<typeof CreateMemoryBodySchema>;

/** `POST /memories/batch` body: 1 to 256 memories, each exactly a `POST /memories` body. */
export const CreateMemoriesBodySchema = z.strictObject({
  items: z.array(CreateMemoryBodySchema).min(1).max(MAX_BATCH_ITEMS),
});

/**
 * The `:id` of a path (a memory's, a key's, a grant's): 1–128 characters without U+0000
 * (PostgreSQL `text` cannot hold it, so such an id could only fail inside the query; it is refused
 * up front instead).
 */
export const PathIdSchema = z
  .string()
  .min(1)
  .max(128)
  .refine((id) => !id.includes("\u0000"), "must not contain U+0000");

/** An ISO 8601 time with an offset (`2026-11-25T08:00:00.000Z`). */
const IsoTimeSchema = z.iso.datetime({ offset: true });

/**
 * The fields of `POST /memories/search`, without the rule that ties them together (see
 * {@link SearchBodySchema}): the MCP `list` tool takes some of them.
 */
export const SearchFieldsSchema = z.strictObject({
  query: ContentSchema.optional().openapi({
    description:
      "recency: a substring every match holds; relevance: the terms to score; semantic and hybrid: the text whose meaning is searched. Optional for recency when a filter is given",
  }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(20)
    .openapi({ description: "most memories in the page, 1–200 (default 20)" }),
  caseSensitive: z
    .boolean()
    .default(false)
    .openapi({ description: "match the query's case exactly (default false)" }),
  metadata: MetadataFilterSchema.optional(),
  namespace: NamespaceSchema.optional().openapi({
    description: "only memories of exactly this namespace",
  }),
  namespacePrefix: NamespaceSchema.optional().openapi({
    description: "only memories whose namespace starts with this",
  }),
  createdAfter: IsoTimeSchema.optional().openapi({
    description: "only memories created strictly after this ISO 8601 time (with an offset)",
  }),
  createdBefore: IsoTimeSchema.optional().openapi({
    description: "only memories created strictly before this ISO 8601 time (with an offset)",
  }),
  rank: z.enum(["recency", "relevance", "semantic", "hybrid"]).default("recency").openapi({
    description:
      '"recency" (newest first, the default), "relevance" (BM25 over the text), "semantic" (cosine similarity of embeddings) or "hybrid" (reciprocal rank fusion of both); all but recency need a query, semantic and hybrid an embedding model (EMBEDDINGS)',
  }),
  includeSuperseded: z.boolean().default(false).openapi({
    description: "also versions replaced by an update (default false: current versions only)",
  }),
  cursor: CursorSchema.optional(),
});

/** `POST /memories/search` body: a query, or a filter without one; every rank but recency needs a query. */
export const SearchBodySchema = SearchFieldsSchema.superRefine((body, ctx) => {
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
  if (body.rank !== "recency" && body.query === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["query"],
      message: `${body.rank} ranking needs a query`,
    });
  }
});

/** A validated `POST /memories/search` body. */
export type SearchBody = z.infer<typeof SearchBodySchema>;
