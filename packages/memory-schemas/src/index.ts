/**
 * `@verifiable-memory/memory-schemas`: the request schemas of the memory routes (docs/protocol.md
 * §4 "Memories and encryption"), shared by core-api's REST routes and the MCP tools of `@verifiable-memory/mcp`
 * so that both validate, and refuse, the same way.
 * @module
 */
export {
  isOperatorObject,
  isWellFormedText,
  MAX_BATCH_BODY_BYTES,
  MAX_BATCH_ITEMS,
  MAX_CONTENT_BYTES,
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_CHARS,
  METADATA_OPERATORS,
  MetadataFilterSchema,
  type MetadataOperator,
  MetadataSchema,
  metadataFilterProblem,
  metadataProblem,
  orderedValueOf,
} from "./metadata.js";
export { CursorSchema, QUERY_INTEGER_PATTERN, queryInteger } from "./query.js";
export {
  ContentSchema,
  CreateMemoriesBodySchema,
  type CreateMemoryBody,
  CreateMemoryBodySchema,
  NAMESPACE_PATTERN,
  NamespaceSchema,
  PathIdSchema,
  type SearchBody,
  SearchBodySchema,
  SearchFieldsSchema,
} from "./requests.js";
export {
  DUPLICATE_KEY_MESSAGE,
  findStrictJsonRefusal,
  INEXACT_NUMBER_MESSAGE,
  isExactJsonNumber,
  type JsonPath,
  type StrictJsonRefusal,
  showJsonPath,
} from "./strict-json.js";
