/**
 * Request and response schemas of the memory routes of both APIs (docs/protocol.md §1 limits, §4, §6,
 * §1). The request schemas are `@verifiable-memory/memory-schemas`' (shared with the MCP tools);
 * the zod schemas that validate requests are the ones published at `/openapi.json`.
 * @module
 */
import { z } from "@hono/zod-openapi";
import {
  ContentSchema,
  CreateMemoryBodySchema,
  MetadataFilterSchema,
  type SearchBody,
  SearchFieldsSchema,
} from "@verifiable-memory/memory-schemas";
import type { SearchInput } from "./memories.js";

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
    limit: SearchFieldsSchema.shape.limit,
    caseSensitive: SearchFieldsSchema.shape.caseSensitive,
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
    score: z.number().optional().openapi({
      description:
        "relevance: BM25 score; semantic: cosine similarity; hybrid: fused reciprocal-rank score (absent with recency)",
    }),
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

const hexNode = z.string().openapi({ description: "32 bytes, 64 lowercase hex characters" });

/** The checkpoint-log path of a proof bundle (docs/protocol.md §6.1 "The proof bundle"). */
export const CheckpointLogProofSchema = z
  .object({
    entry: z.string().openapi({
      description:
        "the user checkpoint's note text (`<LOG_ORIGIN>/users/<owner>`, size, base64 root; each line ending in a newline), the checkpoint log's entry",
    }),
    userCheckpoint: z.string().openapi({
      description: "the same user checkpoint as a signed note (docs/protocol.md §13.3)",
    }),
    userInclusionProof: z.array(hexNode).openapi({
      description: "audit path of the memory's leaf in the user's tree at the entry's size",
    }),
    leafIndex: z.number().int().openapi({ description: "the entry's index in the checkpoint log" }),
    treeSize: z
      .number()
      .int()
      .openapi({ description: "checkpoint log size at its latest anchored head" }),
    rootHash: z.string().openapi({ description: "checkpoint log root at `treeSize`, hex" }),
    inclusionProof: z.array(hexNode).openapi({
      description: "audit path of the entry in the checkpoint log of `treeSize` entries",
    }),
    anchor: z.object({
      cluster: z.string(),
      programId: z.string(),
      account: z
        .string()
        .openapi({ description: 'the checkpoint log account, PDA ["checkpoint-log", authority]' }),
      size: z.number().int(),
      nonce: z.number().int().openapi({ description: "the account's nonce after the transaction" }),
      signature: z.string(),
      slot: z.number().int(),
    }),
  })
  .openapi("CheckpointLogProof");

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
    checkpointLog: CheckpointLogProofSchema.nullable().openapi({
      description:
        "the path through the checkpoint log (docs/protocol.md §6.1): null until a logged user checkpoint under an anchored checkpoint-log head covers the memory",
    }),
  })
  .openapi("ProofBundle");

/** `GET /memories/:id/verify` answer (docs/protocol.md §6): the outcome and the account checked. */
export const VerifyResultSchema = z
  .object({
    verified: z.boolean(),
    reason: z.enum(["not_anchored", "root_mismatch", "proof_invalid"]).nullable(),
    path: z.enum(["account", "checkpoint_log"]).openapi({
      description:
        "what the memory was checked through: the owner's commitment account, or (for a memory only the checkpoint log covers yet) the checkpoint log account",
    }),
    checkedAgainst: z.object({ ...commitmentFields, rootHash: z.string() }).nullable(),
    checkpointLog: z
      .object({
        cluster: z.string(),
        programId: z.string(),
        account: z.string().openapi({ description: 'the PDA ["checkpoint-log", authority]' }),
        size: z.number().int(),
        nonce: z.number().int(),
        rootHash: z.string(),
      })
      .nullable()
      .openapi({
        description: "the checkpoint log account as read (path checkpoint_log), else null",
      }),
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
    unranked: z.number().int().optional().openapi({
      description:
        "semantic and hybrid: memories passing the filter without a vector of the current model (left out of semantic, ranked by BM25 alone in hybrid)",
    }),
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
