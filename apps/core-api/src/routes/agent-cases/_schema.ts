/**
 * Request and response schemas of the capability-grant routes (docs/protocol.md §8). The zod schemas
 * that validate requests are the ones published at `/openapi.json`.
 * @module
 */

import { z } from "@hono/zod-openapi";
import { withoutNul } from "@verifiable-memory/http-kit";
import { ContentSchema, MemoryWithProofSchema } from "@verifiable-memory/memory";
import { CursorSchema, queryInteger } from "@verifiable-memory/memory-schemas";

/**
 * `{grant}` of `/agent-cases/{grant}`: one path, two meanings by method — the grant's id for its
 * owner's `DELETE` (revoke), the grant's token (the capability itself) for the anonymous `GET`
 * (use). 1–128 characters without U+0000.
 */
export const GrantParamSchema = z.object({
  grant: withoutNul(z.string().min(1).max(128)).openapi({
    param: { name: "grant", in: "path" },
    description:
      "DELETE: the grant's id; GET: the grant's token (the capability URL's last segment)",
  }),
});

/** Most memories one `read_memories` grant names (docs/protocol.md §8). */
export const MAX_GRANT_MEMORIES = 100;

const ReadMemoriesOperationSchema = z.strictObject({
  type: z.literal("read_memories"),
  memoryIds: z
    .array(withoutNul(z.string().min(1).max(128)))
    .min(1)
    .max(MAX_GRANT_MEMORIES)
    .refine((ids) => new Set(ids).size === ids.length, "memoryIds must be distinct"),
});

const SearchOperationSchema = z.strictObject({
  type: z.literal("search"),
  query: withoutNul(ContentSchema),
  limit: z.number().int().min(1).max(200).optional(),
});

/** The one operation a grant allows. */
export const GrantOperationSchema = z
  .discriminatedUnion("type", [ReadMemoriesOperationSchema, SearchOperationSchema])
  .openapi("GrantOperation");

/** `POST /agent-cases` body. */
export const CreateGrantBodySchema = z.strictObject({
  operation: GrantOperationSchema,
  expiresInSeconds: z.number().int().min(60).max(2_592_000).default(86_400),
  maxUses: z.number().int().min(1).max(1000).default(1),
  label: withoutNul(z.string().min(1).max(100)).optional(),
});

const confinementField = {
  namespacePrefix: z.string().optional().openapi({
    description:
      "set when a namespace-confined API key created the grant: it reaches only that prefix",
  }),
};

const StoredOperationSchema = z.union([
  z.object({
    type: z.literal("read_memories"),
    memoryIds: z.array(z.string()),
    ...confinementField,
  }),
  z.object({
    type: z.literal("search"),
    query: z.string(),
    limit: z.number().int().optional(),
    ...confinementField,
  }),
]);

/** `POST /agent-cases` answer: the only time the token and URL are shown. */
export const CreatedGrantSchema = z
  .object({
    id: z.string(),
    url: z.string().openapi({ description: "PUBLIC_BASE_URL/agent-cases/<token>" }),
    token: z.string().openapi({ description: "32 random bytes, base58; only its SHA-256 is kept" }),
    operation: StoredOperationSchema,
    label: z.string().nullable(),
    expiresAt: z.string(),
    maxUses: z.number().int(),
    usesRemaining: z.number().int(),
    createdAt: z.string(),
  })
  .openapi("CreatedGrant");

/** A grant in its owner's listing. */
export const GrantSchema = z
  .object({
    id: z.string(),
    operation: StoredOperationSchema,
    label: z.string().nullable(),
    expiresAt: z.string(),
    maxUses: z.number().int(),
    usesRemaining: z.number().int(),
    status: z.enum(["active", "revoked", "expired", "exhausted"]),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("Grant");

/** One audited attempt to use a grant (docs/protocol.md §8). */
export const GrantAuditSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    outcome: z.enum(["ok", "not_found", "revoked", "expired", "exhausted"]),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .openapi("GrantAttempt");

/** `GET /agent-cases/:token` answer. */
export const GrantUseSchema = z
  .object({
    operation: StoredOperationSchema,
    expiresAt: z.string(),
    usesRemaining: z.number().int(),
    memories: z.array(MemoryWithProofSchema),
    omitted: z
      .number()
      .int()
      .openapi({ description: "granted memories left out because they were deleted" }),
  })
  .openapi("GrantUse");

/** `?limit=&cursor=` of the paginated grant lists (docs/protocol.md §1). */
export const PageQuerySchema = z.strictObject({
  limit: queryInteger(1, 200).default(50),
  cursor: CursorSchema.optional(),
});
