/**
 * Shared schemas of the key routes (docs/protocol.md §3).
 * @module
 */
import { z } from "@hono/zod-openapi";

export const ApiKeySchema = z
  .object({
    id: z.string(),
    prefix: z.string(),
    label: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi("ApiKey");
