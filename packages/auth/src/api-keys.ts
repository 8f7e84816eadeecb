/**
 * API keys (docs/protocol.md §3.2 "API keys"; docs/protocol.md §3): `svc_` + 48 hex characters
 * (24 random bytes). Only the SHA-256 is stored, with the first 12 characters in clear.
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import { type ApiKeyScope, type Database, insertApiKey } from "@verifiable-memory/db-schema";

/** The prefix that marks a bearer token as an API key. */
export const API_KEY_PREFIX = "svc_";
/** How many leading characters of a raw key are stored in clear. */
export const API_KEY_STORED_PREFIX_LENGTH = 12;

/** A freshly minted key: the only time `key` is ever available. */
export interface CreatedApiKey {
  readonly id: string;
  readonly key: string;
  readonly prefix: string;
  readonly label: string;
  readonly createdAt: Date;
  readonly scopes: readonly ApiKeyScope[];
  readonly expiresAt: Date | null;
  readonly namespace: string | null;
}

/** What a new key may do (docs/protocol.md §3.5 "Scopes, expiry and confinement"). */
export interface ApiKeyGrant {
  /** 1–100 characters. */
  readonly label: string;
  /** Default: every scope. */
  readonly scopes?: readonly ApiKeyScope[] | undefined;
  /** Default: never expires. */
  readonly expiresAt?: Date | null | undefined;
  /** Namespace prefix the key is confined to; default none. */
  readonly namespace?: string | null | undefined;
}

/** SHA-256 of a raw API key (the stored, looked-up form). */
export function hashApiKey(rawKey: string): Uint8Array {
  return createHash("sha256").update(rawKey, "utf8").digest();
}

/**
 * Mints an API key for `userId`: 24 random bytes, stored as SHA-256 + 12-character prefix, with
 * its scopes, expiry and namespace confinement (validated by the route).
 * @returns the raw key (shown once) and its record.
 */
export async function createApiKey(
  db: Database,
  userId: string,
  grant: ApiKeyGrant,
): Promise<CreatedApiKey> {
  const key = `${API_KEY_PREFIX}${randomBytes(24).toString("hex")}`;
  const prefix = key.slice(0, API_KEY_STORED_PREFIX_LENGTH);
  const row = await insertApiKey(db, {
    userId,
    keyHash: hashApiKey(key),
    prefix,
    label: grant.label,
    ...(grant.scopes ? { scopes: grant.scopes } : {}),
    expiresAt: grant.expiresAt ?? null,
    namespace: grant.namespace ?? null,
  });
  return {
    id: row.id,
    key,
    prefix,
    label: row.label,
    createdAt: row.createdAt,
    scopes: row.scopes,
    expiresAt: row.expiresAt,
    namespace: row.namespace,
  };
}
