/**
 * Sign-in challenge queries: persisted, single-use nonces scoped to (nonce, public key)
 * (docs/protocol.md §2.3 "Verification" step 2).
 * @module
 */
import { and, eq, lt, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type NoncePurpose, type SignInNonce, signInNonces } from "../schema/sign-in-nonces.js";
import { timestamptz } from "./_sql.js";

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
 * Stores a challenge only while fewer than `maxOutstanding` challenges (both purposes together)
 * are unexpired at `now` (docs/protocol.md §2.1 "The challenge"). The count is bounded (it reads at
 * most `maxOutstanding` index entries) and taken in the INSERT's own statement; concurrent inserts
 * may each see the last free place, so the table can exceed the cap by the number of concurrent
 * requests, never more.
 * @returns false, storing nothing, when the cap is reached.
 */
export async function insertNonceWithin(
  db: Executor,
  input: NewNonce,
  now: Date,
  maxOutstanding: number,
): Promise<boolean> {
  const rows = await db.execute(sql`
    insert into ${signInNonces} (nonce, public_key, message, expires_at, purpose, redirect_uri)
    select ${input.nonce}, ${input.publicKey}, ${input.message}, ${timestamptz(input.expiresAt)},
      ${input.purpose ?? "sign_in"}, ${input.redirectUri ?? null}
    where (select count(*) from (
      select 1 from ${signInNonces} where ${signInNonces.expiresAt} > ${timestamptz(now)}
      limit ${maxOutstanding}) outstanding) < ${maxOutstanding}
    returning nonce`);
  return rows.length === 1;
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
