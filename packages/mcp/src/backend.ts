/**
 * The backend the MCP tools call: the operations over one caller's memories, each taking
 * arguments already validated by the REST routes' own schemas (`@verifiable-memory/memory-schemas`). Two
 * implementations: {@link clientBackend} (over `@verifiable-memory/client`, for the stdio server) and core-api's
 * own over its in-process services (for `POST /mcp`). A backend acts as one caller — an API key or
 * a wallet session — whose scopes and namespace confinement the service enforces.
 * @module
 */

import type { CreateMemoryBody, SearchBody } from "@verifiable-memory/memory-schemas";

/** A memory's JSON metadata object. */
export type Metadata = Readonly<Record<string, unknown>>;

/** What `remember` stores and `update` writes: a validated `POST /memories` body. */
export type RememberInput = CreateMemoryBody;

/** What `recall` and `list` search for: a validated `POST /memories/search` body (docs/protocol.md §4.5 "Recall"). */
export type RecallInput = SearchBody;

/** A stored memory as the tools report it (no content). */
export interface StoredMemory {
  readonly id: string;
  readonly leafIndex: number;
  /** Lowercase hex SHA-256 of the leaf (docs/protocol.md §5). */
  readonly leafHash: string;
  readonly metadata: Metadata;
  readonly namespace: string | null;
  /** ISO 8601 time. */
  readonly createdAt: string;
  /** True once the memory's leaf is covered by a root committed on chain. */
  readonly anchored: boolean;
  /** The memory this version updates (`update`), or null. */
  readonly supersedes: string | null;
  /** The version that updated this one, or null while it is current. */
  readonly supersededBy: string | null;
}

/** A recalled memory: decrypted content, and its score under a rank other than `recency`. */
export interface RecalledMemory extends StoredMemory {
  readonly content: string;
  readonly score?: number | undefined;
}

/** One page of recall. */
export interface RecallResult {
  readonly items: readonly RecalledMemory[];
  /** The cursor of the next page, or null on the last one. */
  readonly nextCursor: string | null;
}

/**
 * A memory's proof bundle (docs/protocol.md §6.1): `memoryId`, `leafIndex`, `leafHash`,
 * `leafData`, `salt`, `anchored`, and — once anchored — `checkpoint`, `inclusionProof`, `anchor`.
 * The tools hand it out whole, as JSON (what `svc-verify` checks).
 */
export interface ProofBundle {
  readonly memoryId: string;
  readonly anchored: boolean;
}

/** The outcome of checking a memory against the chain. */
export interface VerifyResult {
  /** True only when the proof checked out against the commitment read from the chain. */
  readonly verified: boolean;
  /**
   * Whether the memory is covered by an anchored root: its owner's commitment account, or the
   * checkpoint log (false: wait for the next anchoring).
   */
  readonly anchored: boolean;
  /**
   * Why not, when `verified` is false: `not_anchored`, `chain_unavailable` (unknown, not false),
   * or a failed check (`proof_invalid`, `root_mismatch`, `leaf_mismatch`, `content_mismatch`,
   * `checkpoint_mismatch`, `stale_checkpoint`, `account_mismatch`, `account_not_found`,
   * `invalid_account`, `authority_mismatch`, `malformed_bundle`; through the checkpoint log also
   * `note_malformed`, `note_signature_invalid`, `entry_mismatch`, `log_inclusion_invalid`,
   * `log_account_not_found`, `log_checkpoint_mismatch`). Null when verified.
   */
  readonly reason: string | null;
  /** One human-readable sentence. */
  readonly message: string;
  /**
   * Who checked: `client` — this process read the chain RPC it was given (trusting the API for
   * nothing); `server` — the service checked against the chain it reads.
   */
  readonly checkedBy: "client" | "server";
  /** What was read from the chain (account, memory count, root…), when it was read. */
  readonly onChain?: unknown;
}

/** Options of the operations on one memory. */
export interface IdOptions {
  /**
   * A namespace prefix the operation is confined to: a memory outside it is `not_found`, as if it
   * did not exist (the MCP server's own confinement, on top of the credential's).
   */
  readonly confinedTo?: string | undefined;
}

/** The operations the MCP tools need, acting as one caller. */
export interface MemoryBackend {
  /**
   * Stores a memory (encrypted, appended to the caller's Merkle log).
   * @throws BackendError `invalid_request`, `insufficient_scope`, `forbidden`, …
   */
  remember(input: RememberInput): Promise<StoredMemory>;
  /**
   * Searches the caller's current memories.
   * @throws BackendError `invalid_request`, `insufficient_scope`, …
   */
  recall(input: RecallInput): Promise<RecallResult>;
  /**
   * One memory, decrypted.
   * @throws BackendError `not_found`, `insufficient_scope`, …
   */
  get(id: string, options?: IdOptions): Promise<RecalledMemory>;
  /**
   * Writes a new version of memory `id` (`PUT /memories/:id`); the old one stays readable and
   * provable, marked superseded.
   * @throws BackendError `not_found`, `conflict` (deleted or already superseded), `forbidden`, …
   */
  update(id: string, input: RememberInput, options?: IdOptions): Promise<StoredMemory>;
  /**
   * Every live version of memory `id`, oldest first (`GET /memories/:id/history`).
   * @throws BackendError `not_found`, `insufficient_scope`, …
   */
  history(id: string, options?: IdOptions): Promise<readonly RecalledMemory[]>;
  /**
   * Deletes a memory's content (its leaf stays in the log).
   * @throws BackendError `not_found`, `insufficient_scope`, …
   */
  forget(id: string, options?: IdOptions): Promise<void>;
  /**
   * The memory's proof bundle at the latest anchored checkpoint.
   * @throws BackendError `not_found`, …
   */
  prove(id: string, options?: IdOptions): Promise<ProofBundle>;
  /**
   * Checks the memory against the chain. A failed check is a result (`verified: false`), not an
   * error.
   * @throws BackendError `not_found`, `chain_unavailable` (when the check itself cannot run), …
   */
  verify(id: string, options?: IdOptions): Promise<VerifyResult>;
}

/**
 * A refusal a tool reports to the model as `{ error: { code, message, details? } }`: the
 * service's error codes (docs/protocol.md §1.4: `not_found`, `invalid_request`,
 * `insufficient_scope`, `forbidden`, `rate_limited`, `chain_unavailable`…) and the SDK's
 * (`network_error`, `unexpected_response`). Any other error a backend throws is reported as
 * `internal`, without its message.
 */
export class BackendError extends Error {
  /** A stable snake_case code. */
  readonly code: string;
  /** More about it, e.g. the failing fields `[{ path, message }]` of `invalid_request`. */
  readonly details: unknown;

  constructor(code: string, message: string, details?: unknown) {
    super(message);
    this.name = "BackendError";
    this.code = code;
    this.details = details;
  }
}

/** Whether `namespace` lies under the confinement `prefix` (null: no confinement). */
export function withinNamespace(
  namespace: string | null,
  prefix: string | null | undefined,
): boolean {
  return prefix === null || prefix === undefined || namespace?.startsWith(prefix) === true;
}
