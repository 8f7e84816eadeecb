/**
 * Shared OpenAPI schemas: the error body (CONTRACT §1) and common response helpers.
 * @module
 */
import { z } from "@hono/zod-openapi";

/** `{ error: { code, message, details? } }`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

/** An error response entry for `createRoute({ responses })`. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ErrorSchema } } };
}

/** The bearer security requirement. */
export const bearerSecurity = [{ bearer: [] }];

/**
 * `:id` of a path: 1–128 characters without U+0000 (PostgreSQL `text` cannot hold it, so such an
 * id could only fail inside the query; it is refused up front with 400 instead).
 */
export const IdParamSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .refine((id) => !id.includes("\u0000"), "must not contain U+0000")
    .openapi({ param: { name: "id", in: "path" } }),
});
