/**
 * OpenAPI pieces of the core API's own: its bearer security requirement and the path id rule.
 * @module
 */
import { z } from "@hono/zod-openapi";
import { PathIdSchema } from "@verifiable-memory/memory-schemas";

/** The bearer security requirement. */
export const bearerSecurity = [{ bearer: [] }];

/** `:id` of a path, as the MCP tools take it: `PathIdSchema` (1–128 characters without U+0000). */
export const IdParamSchema = z.object({
  id: PathIdSchema.openapi({ param: { name: "id", in: "path" } }),
});
