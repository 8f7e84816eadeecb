/**
 * OpenAPI pieces of the core API's own: its bearer security requirement and the path id rule.
 * @module
 */
import { z } from "@hono/zod-openapi";

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
