/**
 * Capability grants, the `agent-cases` of docs/protocol.md §8 and §1 (docs/protocol.md §8): a bearer URL that
 * grants exactly one operation over its owner's memories, with an expiry and a use count. The
 * token is 32 random bytes in base58 and only its SHA-256 is stored. A use is counted by one SQL
 * statement and audited in the same transaction, whatever its outcome.
 * @module
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { type AuthContext, requireScope } from "@verifiable-memory/auth";
import type { Clock } from "@verifiable-memory/clock";
import {
  type ApiKeyScope,
  type CapabilityGrant,
  type Database,
  type GrantAuditRow,
  type GrantOperation,
  type GrantOutcome,
  type GrantWithCreator,
  getGrant,
  getMemoriesByIds,
  getUserById,
  insertGrant,
  insertGrantAudit,
  latestAnchoredCheckpoint,
  listGrantAudit,
  listGrants,
  type Memory,
  revokeGrant,
  useGrant,
} from "@verifiable-memory/db-schema";
import { decryptGrantQuery, encryptGrantQuery } from "@verifiable-memory/envelope-crypto";
import {
  type Caller,
  type DataKeys,
  type MemoryService,
  type MemoryWithProof,
  type Owner,
  type ProofService,
  withinConfinement,
} from "@verifiable-memory/memory";
import bs58 from "bs58";
import { ApiError, type ErrorCode } from "../errors.js";

/** Bytes of randomness in a grant token (docs/protocol.md §8). */
export const GRANT_TOKEN_BYTES = 32;

/**
 * The scopes a grant's operation delegates, which its creator must hold besides `grants:write`
 * (docs/protocol.md §8 "Capability grants"): both operations read memories.
 */
export const GRANT_OPERATION_SCOPES: Readonly<
  Record<CreateGrantInput["operation"]["type"], readonly ApiKeyScope[]>
> = {
  read_memories: ["memories:read"],
  search: ["memories:read"],
};

/** Default number of matches a `search` grant returns (as `POST /memories/search`). */
export const DEFAULT_GRANT_SEARCH_LIMIT = 20;

/** `POST /agent-cases` input, validated by the route (docs/protocol.md §8). */
export interface CreateGrantInput {
  readonly operation:
    | { readonly type: "read_memories"; readonly memoryIds: readonly string[] }
    | { readonly type: "search"; readonly query: string; readonly limit?: number | undefined };
  /** 60 to 2 592 000 seconds. */
  readonly expiresInSeconds: number;
  /** 1 to 1 000. */
  readonly maxUses: number;
  readonly label?: string | undefined;
}

/** A grant's operation as the API shows it. */
export type GrantOperationView = (
  | { type: "read_memories"; memoryIds: string[] }
  | { type: "search"; query: string; limit?: number }
) & { namespacePrefix?: string };

/** Whether a grant can still be used, ranked revoked, expired, exhausted (docs/protocol.md §8). */
export type GrantStatus = "active" | "revoked" | "expired" | "exhausted";

/** A grant as its owner sees it (never the token). */
export interface GrantView {
  readonly id: string;
  readonly operation: GrantOperationView;
  readonly label: string | null;
  readonly expiresAt: string;
  readonly maxUses: number;
  readonly usesRemaining: number;
  readonly status: GrantStatus;
  readonly revokedAt: string | null;
  readonly createdAt: string;
}

/** `POST /agent-cases` answer: the grant and, this once, its token and URL. */
export interface CreatedGrantView {
  readonly id: string;
  readonly url: string;
  readonly token: string;
  readonly operation: GrantOperationView;
  readonly label: string | null;
  readonly expiresAt: string;
  readonly maxUses: number;
  readonly usesRemaining: number;
  readonly createdAt: string;
}

/** One audited attempt (docs/protocol.md §1). */
export interface GrantAuditView {
  readonly id: string;
  readonly at: string;
  readonly outcome: GrantOutcome;
  readonly ip: string | null;
  readonly userAgent: string | null;
}

/** Who attempted a use, as the HTTP layer saw it. */
export interface GrantClient {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

/** `GET /agent-cases/:token` answer (docs/protocol.md §8). */
export interface GrantUseView {
  readonly operation: GrantOperationView;
  readonly expiresAt: string;
  readonly usesRemaining: number;
  /** The granted memories, each with its proof bundle nested as `proof`. */
  readonly memories: MemoryWithProof[];
  /** Granted memories left out because they were deleted after the grant was made. */
  readonly omitted: number;
}

/** What the grant service needs. */
export interface GrantServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  /** Users' data keys: a grant use opens its owner's memories. */
  readonly dataKeys: DataKeys;
  /** PUBLIC_BASE_URL without a trailing slash; grant URLs are `<base>/agent-cases/<token>`. */
  readonly publicBaseUrl: string;
  readonly memories: MemoryService;
  readonly proofs: ProofService;
}

/** Longest client IP or user agent kept in an audit row. */
const MAX_AUDIT_TEXT = 512;

const REFUSALS: Record<Exclude<GrantOutcome, "ok">, { code: ErrorCode; message: string }> = {
  not_found: { code: "not_found", message: "no such grant" },
  revoked: { code: "grant_revoked", message: "the grant was revoked" },
  expired: { code: "grant_expired", message: "the grant has expired" },
  exhausted: { code: "grant_exhausted", message: "the grant has no uses left" },
};

/** Capability grant operations: the owner's management and the anonymous use. */
export class GrantService {
  constructor(private readonly deps: GrantServiceDeps) {}

  /**
   * Creates a grant over the owner's memories. The caller must hold the scopes of the operation it
   * delegates ({@link GRANT_OPERATION_SCOPES}); the route has checked `grants:write`. A
   * `read_memories` grant must name live memories of the owner only; a `search` grant stores its
   * limit (default 20). A grant created by a namespace-confined key records the confinement and
   * never reaches past it; a grant created by an API key records the key, whose revocation or
   * expiry revokes the grant. A `search` query is stored only sealed under the owner's data key,
   * bound to the owner and the grant id (docs/protocol.md §8.1 "Creation").
   * @returns the grant with its token and URL, which are never shown again.
   * @throws AuthError insufficient_scope (403) when the caller lacks a delegated scope; ApiError
   *   not_found when a named memory is unknown, deleted, another user's or outside the caller's
   *   confinement (`details` lists which).
   */
  async create(owner: AuthContext, input: CreateGrantInput): Promise<CreatedGrantView> {
    for (const scope of GRANT_OPERATION_SCOPES[input.operation.type]) {
      requireScope(owner, scope);
    }
    const operation = await this.checkOperation(owner, input.operation);
    const token = bs58.encode(randomBytes(GRANT_TOKEN_BYTES));
    const now = this.deps.clock.now();
    const id = randomUUID();
    const query =
      input.operation.type === "search"
        ? encryptGrantQuery(this.deps.dataKeys.of(owner), input.operation.query, {
            userId: owner.userId,
            grantId: id,
          })
        : null;
    const grant = await insertGrant(this.deps.db, {
      id,
      userId: owner.userId,
      tokenHash: hashGrantToken(token),
      operation,
      query,
      label: input.label ?? null,
      createdByKeyId: owner.apiKeyId,
      maxUses: input.maxUses,
      expiresAt: new Date(now.getTime() + input.expiresInSeconds * 1000),
      createdAt: now,
    });
    return {
      id: grant.id,
      url: `${this.deps.publicBaseUrl}/agent-cases/${token}`,
      token,
      operation: operationView(
        grant.operation,
        input.operation.type === "search" ? input.operation.query : undefined,
      ),
      label: grant.label,
      expiresAt: grant.expiresAt.toISOString(),
      maxUses: grant.maxUses,
      usesRemaining: grant.maxUses - grant.uses,
      createdAt: grant.createdAt.toISOString(),
    };
  }

  /**
   * The owner's grants, newest first, one page; a confined caller sees only the grants created
   * under its confinement. Search queries are opened with the owner's data key.
   * @throws InvalidCursorError (`@verifiable-memory/db-schema`) for a cursor this list did not issue;
   *   DecryptionError when a stored query does not open (tampered row).
   */
  async list(
    owner: AuthContext,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ items: GrantView[]; nextCursor: string | null }> {
    const result = await listGrants(this.deps.db, owner.userId, {
      limit: page.limit,
      ...(page.cursor ? { cursor: page.cursor } : {}),
      confinedTo: owner.namespace,
    });
    const now = this.deps.clock.now();
    const dataKey = this.deps.dataKeys.of(owner);
    return {
      items: result.items.map((g) => grantView(g, grantQuery(dataKey, g), now)),
      nextCursor: result.nextCursor,
    };
  }

  /**
   * Revokes the owner's grant; effective on the very next use; idempotent.
   * @throws ApiError not_found when the grant is unknown, another user's, or (for a confined
   *   caller) not created under its confinement.
   */
  async revoke(owner: Caller, id: string): Promise<void> {
    await this.visibleGrant(owner, id);
    if (!(await revokeGrant(this.deps.db, owner.userId, id, this.deps.clock.now()))) {
      throw new ApiError("not_found", "no such grant");
    }
  }

  /**
   * The attempts on the owner's grant, newest first, one page.
   * @throws ApiError not_found when the grant is unknown, another user's or outside a confined
   *   caller's confinement; InvalidCursorError.
   */
  async audit(
    owner: Caller,
    id: string,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ items: GrantAuditView[]; nextCursor: string | null }> {
    await this.visibleGrant(owner, id);
    const result = await listGrantAudit(this.deps.db, owner.userId, id, {
      limit: page.limit,
      ...(page.cursor ? { cursor: page.cursor } : {}),
    });
    return { items: result.items.map(auditView), nextCursor: result.nextCursor };
  }

  /**
   * Uses the grant whose token is `token` (no other credential). The use is counted atomically
   * and one audit row is written in the same transaction, whatever the outcome; then the granted
   * memories are read with the owner's data key and each gets its proof bundle at the latest
   * anchored checkpoint.
   * @throws ApiError not_found (unknown token), grant_revoked, grant_expired or grant_exhausted.
   */
  async use(token: string, client: GrantClient): Promise<GrantUseView> {
    const now = this.deps.clock.now();
    const used = await this.deps.db.transaction(async (tx) => {
      const result = await useGrant(tx, hashGrantToken(token), now);
      await insertGrantAudit(tx, {
        grantId: result.grant?.id ?? null,
        userId: result.grant?.userId ?? null,
        outcome: result.outcome,
        ip: clip(client.ip),
        userAgent: clip(client.userAgent),
        at: now,
      });
      return result;
    });
    if (used.outcome !== "ok") {
      const refusal = REFUSALS[used.outcome];
      throw new ApiError(refusal.code, refusal.message);
    }
    const grant = used.grant;
    const user = await getUserById(this.deps.db, grant.userId);
    if (!user) {
      throw new Error(`grant ${grant.id}: its owner ${grant.userId} does not exist`);
    }
    const owner: Owner = { userId: user.id, ownerPubkey: user.ownerPubkey };
    const dataKey = this.deps.dataKeys.of({
      userId: user.id,
      wrappedDataKey: user.wrappedDataKey,
    });
    const query = grantQuery(dataKey, grant);
    const wanted = await this.grantedIds(owner, dataKey, grant.operation, query);
    const [rows, checkpoint] = await Promise.all([
      getMemoriesByIds(this.deps.db, owner.userId, wanted),
      latestAnchoredCheckpoint(this.deps.db, owner.userId),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const live = wanted.map((id) => byId.get(id)).filter((row): row is Memory => row !== undefined);
    const memories = await Promise.all(
      live.map((row) => this.deps.proofs.memoryWithProof(owner, dataKey, row, checkpoint)),
    );
    return {
      operation: operationView(grant.operation, query),
      expiresAt: grant.expiresAt.toISOString(),
      usesRemaining: grant.maxUses - grant.uses,
      memories,
      omitted: wanted.length - live.length,
    };
  }

  /**
   * The caller's grant `id`, when visible to it.
   * @throws ApiError not_found when unknown, another user's, or outside a confined caller's
   *   confinement.
   */
  private async visibleGrant(owner: Caller, id: string): Promise<GrantWithCreator> {
    const grant = await getGrant(this.deps.db, owner.userId, id);
    if (
      !grant ||
      (owner.namespace !== null &&
        !withinConfinement(grant.operation.namespacePrefix ?? null, owner.namespace))
    ) {
      throw new ApiError("not_found", "no such grant");
    }
    return grant;
  }

  /** The memory ids an operation reaches (`query`: a search's opened query), in answer order. */
  private async grantedIds(
    owner: Owner,
    dataKey: Uint8Array,
    operation: GrantOperation,
    query: string | undefined,
  ): Promise<readonly string[]> {
    if (operation.type === "read_memories") {
      return operation.memoryIds;
    }
    const caller: Caller = {
      ...owner,
      credential: "session",
      apiKeyId: null,
      namespace: operation.namespacePrefix ?? null,
    };
    if (query === undefined) {
      throw new Error("a search grant without a query");
    }
    const found = await this.deps.memories.search(caller, dataKey, {
      query,
      limit: operation.limit ?? DEFAULT_GRANT_SEARCH_LIMIT,
      caseSensitive: false,
      rank: "recency",
    });
    return found.items.map((item) => item.id);
  }

  /**
   * The operation as stored; every named memory must be a live memory of the owner within the
   * caller's confinement, which the grant records.
   */
  private async checkOperation(
    owner: Caller,
    operation: CreateGrantInput["operation"],
  ): Promise<GrantOperation> {
    const confinement = owner.namespace === null ? {} : { namespacePrefix: owner.namespace };
    if (operation.type === "search") {
      return {
        type: "search",
        limit: operation.limit ?? DEFAULT_GRANT_SEARCH_LIMIT,
        ...confinement,
      };
    }
    const found = (await getMemoriesByIds(this.deps.db, owner.userId, operation.memoryIds)).filter(
      (row) => withinConfinement(row.namespace, owner.namespace),
    );
    const present = new Set(found.map((row) => row.id));
    const missing = operation.memoryIds.flatMap((id, i) =>
      present.has(id) ? [] : [{ path: ["operation", "memoryIds", i], message: "no such memory" }],
    );
    if (missing.length > 0) {
      throw new ApiError("not_found", "a granted memory does not exist", missing);
    }
    return { type: "read_memories", memoryIds: [...operation.memoryIds], ...confinement };
  }
}

/** SHA-256 of a grant token's UTF-8 bytes: the only form in which a token is stored. */
export function hashGrantToken(token: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(token, "utf8").digest());
}

/**
 * When `grant` stopped being usable by revocation: its own `revokedAt`, else the revocation of the
 * API key that created it, else that key's expiry once passed at `now`; null while none applies.
 */
export function grantRevokedAt(grant: GrantWithCreator, now: Date): Date | null {
  if (grant.revokedAt !== null || grant.keyRevokedAt !== null) {
    return grant.revokedAt ?? grant.keyRevokedAt;
  }
  return grant.keyExpiresAt !== null && grant.keyExpiresAt.getTime() <= now.getTime()
    ? grant.keyExpiresAt
    : null;
}

/**
 * The status of `grant` at `now`, ranked revoked (itself or its creating key, revoked or
 * expired), expired, exhausted (docs/protocol.md §8).
 */
export function grantStatus(grant: GrantWithCreator, now: Date): GrantStatus {
  if (grantRevokedAt(grant, now) !== null) {
    return "revoked";
  }
  if (grant.expiresAt.getTime() <= now.getTime()) {
    return "expired";
  }
  return grant.uses >= grant.maxUses ? "exhausted" : "active";
}

/**
 * The query text of a `search` grant: opened from its sealed columns with the owner's data key
 * (docs/protocol.md §8.1 "Creation"), or, for a row written before queries were sealed and not yet
 * re-encrypted at start-up, its clear `operation.query`; undefined for `read_memories`.
 * @throws DecryptionError when the sealed query does not open under `dataKey` for this user and grant.
 */
export function grantQuery(dataKey: Uint8Array, grant: CapabilityGrant): string | undefined {
  if (grant.operation.type !== "search") {
    return undefined;
  }
  if (grant.queryCiphertext !== null && grant.queryIv !== null) {
    return decryptGrantQuery(
      dataKey,
      { ciphertext: grant.queryCiphertext, iv: grant.queryIv },
      { userId: grant.userId, grantId: grant.id },
    );
  }
  return grant.operation.query;
}

function grantView(grant: GrantWithCreator, query: string | undefined, now: Date): GrantView {
  return {
    id: grant.id,
    operation: operationView(grant.operation, query),
    label: grant.label,
    expiresAt: grant.expiresAt.toISOString(),
    maxUses: grant.maxUses,
    usesRemaining: grant.maxUses - grant.uses,
    status: grantStatus(grant, now),
    revokedAt: grantRevokedAt(grant, now)?.toISOString() ?? null,
    createdAt: grant.createdAt.toISOString(),
  };
}

function operationView(operation: GrantOperation, query: string | undefined): GrantOperationView {
  if (operation.type === "search" && query === undefined) {
    throw new Error("a search grant without a query");
  }
  const confinement =
    operation.namespacePrefix === undefined ? {} : { namespacePrefix: operation.namespacePrefix };
  return operation.type === "read_memories"
    ? { type: "read_memories", memoryIds: [...operation.memoryIds], ...confinement }
    : {
        type: "search",
        query: query as string,
        ...(operation.limit === undefined ? {} : { limit: operation.limit }),
        ...confinement,
      };
}

function auditView(row: GrantAuditRow): GrantAuditView {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    outcome: row.outcome,
    ip: row.ip,
    userAgent: row.userAgent,
  };
}

function clip(text: string | null): string | null {
  return text === null ? null : text.slice(0, MAX_AUDIT_TEXT);
}
