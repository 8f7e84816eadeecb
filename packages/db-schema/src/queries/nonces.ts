/**
 * Sign-in challenge queries: persisted, single-use nonces scoped to (nonce, public key)
 * (docs/protocol.md §2.3 "Verification" step 2).
 * @module
 */
import { and, eq, lt } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type NoncePurpose, type SignInNonce, signInNonces } from "../schema/sign-in-nonces.js";

/** Input of {@link insertNonce}. */
export interface NewNonce {
  readonly nonce: string;
  readonly publicKey: string;
  /** The exact message text issued. */
  readonly message: string;
  readonly expiresAt: Date;
  /** Default `sign_in`; the extension connect flow uses `extension_connect`. */
  readonly purpose?: NoncePurpose;
  /** The redirect URI the extension challenge was issued for. */
  readonly redirectUri?: string | null;
}

/**
 * Persists an issued challenge.
 * @throws the PostgreSQL unique violation (23505) if (nonce, publicKey) was already issued.
 */
export async function insertNonce(db: Executor, input: NewNonce): Promise<SignInNonce> {
  const rows = await db
    .insert(signInNonces)
    .values({
      nonce: input.nonce,
      publicKey: input.publicKey,
      message: input.message,
      expiresAt: input.expiresAt,
      purpose: input.purpose ?? "sign_in",
      redirectUri: input.redirectUri ?? null,
    })
    .returning();
  return rows[0] as SignInNonce;
}

/**
 * Atomically consumes the challenge issued for (nonce, publicKey) and `purpose`:
 * `DELETE … WHERE nonce = $1 AND public_key = $2 AND purpose = $3 RETURNING *`. Of concurrent
 * calls exactly one gets the row. Expiry is NOT checked here: the caller checks `expiresAt` next
 * (docs/protocol.md §2 step 3), so an expired nonce is consumed too.
 * @returns the consumed row, or null when unknown, already consumed, or issued to another key.
 */
export async function consumeNonce(
  db: Executor,
  nonce: string,
  publicKey: string,
  purpose: NoncePurpose = "sign_in",
): Promise<SignInNonce | null> {
  const rows = await db
    .delete(signInNonces)
    .where(
      and(
        eq(signInNonces.nonce, nonce),
        eq(signInNonces.publicKey, publicKey),
        eq(signInNonces.purpose, purpose),
      ),
    )
    .returning();
  return rows[0] ?? null;
}

/**
 * Service-wide maintenance: deletes challenges that expired before `now`.
 * @returns the number of rows deleted.
 */
export async function deleteExpiredNonces(db: Executor, now: Date): Promise<number> {
  const rows = await db
    .delete(signInNonces)
    .where(lt(signInNonces.expiresAt, now))
    .returning({ nonce: signInNonces.nonce });
  return rows.length;
}
