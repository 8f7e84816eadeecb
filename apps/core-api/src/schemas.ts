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
