/**
 * Named views of the generated core-api types (src/generated/core-api.ts). Nothing here is
 * written by hand: every type is picked out of the OpenAPI document's schemas and operations, so
 * a change of the API shows up here at the next `generate` (and fails typecheck where it breaks
 * the SDK).
 * @module
 */
import type { components, operations, paths } from "./generated/core-api.js";

export type { components, operations, paths };

type Schemas = components["schemas"];

/** The JSON request body of an operation. */
export type RequestBody<Op extends keyof operations> = operations[Op]["requestBody"] extends
  | { content: { "application/json": infer Body } }
  | undefined
  ? Body
  : never;

/** The query parameters of an operation. */
export type QueryParams<Op extends keyof operations> = NonNullable<
  operations[Op]["parameters"]["query"]
>;

/**
 * A query type whose `"true" | "false"` parameters (how the API spells booleans in a query
 * string) also accept `true` / `false`.
 */
export type WithBooleans<Query> = {
  [K in keyof Query]: Query[K] extends "true" | "false" | undefined ? Query[K] | boolean : Query[K];
};

/** The API's error body (docs/protocol.md §1.3). */
export type ErrorBody = Schemas["Error"];
/** `GET /info`: what a verifier pins (cluster, program id, anchoring authority…). */
export type ServiceInfo = Schemas["ServiceInfo"];
/** `POST /auth/challenge`'s answer: the SIWS message to sign. */
export type Challenge = Schemas["Challenge"];
/** `POST /auth/verify`'s answer: the session JWT and who it is for. */
export type Session = Schemas["Session"];

/** A memory as read (`GET /memories/:id`, lists, recall). */
export type Memory = Schemas["Memory"];
/** A memory as written (`POST /memories`, batch, `PUT`): no content echoed back. */
export type CreatedMemory = Schemas["CreatedMemory"];
/** JSON object metadata of a memory. */
export type Metadata = Schemas["Metadata"];
/** A page of `GET /memories`. */
export type MemoryPage = Schemas["MemoryPage"];
/** `POST /memories/search`'s answer. */
export type SearchResult = Schemas["SearchResult"];
/** A memory with its proof bundle nested as `proof` (history, grant answers). */
export type MemoryWithProof = Schemas["MemoryWithProof"];
/** `GET /memories/:id/proof`: the proof bundle (docs/protocol.md §6.1). */
export type ProofBundle = Schemas["ProofBundle"];
/** `GET /memories/:id/verify`: the server's own check (trusts the API). */
export type ServerVerifyResult = Schemas["VerifyResult"];
/** `GET /log`: the tree head and the latest anchored checkpoint. */
export type LogHead = Schemas["Log"];
/** `GET /log/consistency`: an RFC 9162 consistency proof. */
export type ConsistencyProof = Schemas["ConsistencyProof"];

/** An API key as listed (never the raw key). */
export type ApiKey = Schemas["ApiKey"];
/** `POST /keys`' answer: the raw `key` appears here only. */
export type CreatedApiKey = Schemas["CreatedApiKey"];

/** A capability grant as listed (never the token). */
export type Grant = Schemas["Grant"];
/** `POST /agent-cases`' answer: `token` and `url` appear here only. */
export type CreatedGrant = Schemas["CreatedGrant"];
/** `GET /agent-cases/:token`'s answer: the granted memories, each with its proof. */
export type GrantUse = Schemas["GrantUse"];
/** One attempt to use a grant, as audited. */
export type GrantAttempt = Schemas["GrantAttempt"];

/** `POST /memories`' body. */
export type CreateMemoryInput = RequestBody<"createMemory">;
/** What `remember` takes besides content and metadata (e.g. `namespace`). */
export type RememberOptions = Omit<CreateMemoryInput, "content" | "metadata">;
/** One item of `POST /memories/batch`. */
export type BatchItem = RequestBody<"createMemories">["items"][number];
/** `POST /memories/search`'s body. */
export type SearchInput = RequestBody<"searchMemories">;
/** What `recall` takes besides the query. */
export type RecallOptions = Omit<SearchInput, "query">;
/** `PUT /memories/:id`'s body. */
export type UpdateMemoryInput = RequestBody<"updateMemory">;
/** What `update` takes besides content and metadata (e.g. `namespace`). */
export type UpdateOptions = Omit<UpdateMemoryInput, "content" | "metadata">;
/** `GET /memories`' query: `limit`, `cursor`, namespace filters, `includeSuperseded`. */
export type ListOptions = WithBooleans<QueryParams<"listMemories">>;
/** `limit` (1–200) and `cursor` of the other paginated lists. */
export type PageOptions = QueryParams<"listApiKeys">;
/** `POST /keys`' body. */
export type CreateKeyInput = RequestBody<"createApiKey">;
/** `POST /agent-cases`' body. */
export type CreateGrantInput = RequestBody<"createGrant">;

/** A page of any paginated list. */
export interface Page<Item> {
  readonly items: Item[];
  readonly nextCursor: string | null;
}
