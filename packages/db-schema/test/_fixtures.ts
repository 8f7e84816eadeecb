/**
 * Test fixtures: users and memories with real leaf hashes (RFC 9162 leaf hashing from
 * @verifiable-memory/merkle-log over distinct leaf data).
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { hashLeaf } from "@verifiable-memory/merkle-log";
import type { Executor, NewMemory, User } from "../src/index.js";
import { upsertUserByPubkey } from "../src/index.js";

/** Creates a user with a random public key and a random 60-byte "wrapped key". */
export async function makeUser(db: Executor): Promise<User> {
  const { user } = await upsertUserByPubkey(db, {
    ownerPubkey: `pk${randomBytes(16).toString("hex")}`,
    makeWrappedKey: () => randomBytes(60),
  });
  return user;
}

/** A memory to append, with a leaf hash over its id and `label`. */
export function newMemory(label = "m", metadata: Record<string, unknown> = {}): NewMemory {
  const id = randomUUID();
  return {
    id,
    ciphertext: randomBytes(48),
    iv: randomBytes(12),
    leafHash: hashLeaf(new TextEncoder().encode(`${id}:${label}`)),
    metadata,
    createdAt: new Date(),
  };
}
