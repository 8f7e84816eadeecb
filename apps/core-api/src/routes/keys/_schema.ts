/**
 * Shared schemas of the key routes (docs/protocol.md §3).
 * @module
 */
import { z } from "@hono/zod-openapi";
import { API_KEY_SCOPES, type ApiKeyScope } from "@verifiable-memory/db-schema";
import { withoutNul } from "@verifiable-memory/http-kit";
import { NamespaceSchema } from "@verifiable-memory/memory";

/**
 * What a key may do, as every key view shows it (docs/protocol.md §3.5 "Scopes, expiry and
 * confinement").
 */
export const keyGrantFields = {
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  expiresAt: z.string().nullable().openapi({ description: "null: never expires" }),
  namespace: z
    .string()
    .nullable()
    .openapi({ description: "the namespace prefix the key is confined to; null: none" }),
};

/** `POST /keys` body. */
export const CreateKeyBodySchema = z.strictObject({
  label: withoutNul(z.string().min(1).max(100)),
  scopes: z
    .array(z.enum(API_KEY_SCOPES))
    .min(1)
    .refine((scopes) => new Set(scopes).size === scopes.length, "scopes must be distinct")
    .optional()
    .openapi({ description: "default: all four" }),
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: "ISO 8601 time, in the future; default: never" }),
  namespace: NamespaceSchema.optional().openapi({
    description: "confine the key to memories whose namespace starts with this",
  }),
});

/** The API view of a key row's scopes, expiry and confinement. */
export function keyGrantView(key: {
  readonly scopes: readonly ApiKeyScope[];
  readonly expiresAt: Date | null;
  readonly namespace: string | null;
}): { scopes: ApiKeyScope[]; expiresAt: string | null; namespace: string | null } {
  return {
    scopes: [...key.scopes],
    expiresAt: key.expiresAt?.toISOString() ?? null,
    namespace: key.namespace,
  };
}

export const ApiKeySchema = z
  .object({
    id: z.string(),
    prefix: z.string(),
    label: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    ...keyGrantFields,
  })
  .openapi("ApiKey");
