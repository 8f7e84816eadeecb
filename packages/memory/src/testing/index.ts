/**
 * Test support (entry point `@verifiable-memory/memory/testing`), shared by this package's tests and the apps'
 * tests: users with real wrapped data keys, raw appends for an AppendQueue, anchored checkpoints
 * recorded as the anchor service records them, the persisted tree head, and an independent
 * recomputation of the RFC 9162 §2.1.1 Merkle Tree Hash to check it against. Never imported by
 * production code.
 * @module
 */
import { createCipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import {
  type Executor,
  getTree,
  insertAnchoredCheckpoint,
  markAnchored,
  type NewMemory,
  rootAtSize,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { generateDataKey, wrapDataKey } from "@verifiable-memory/envelope-crypto";
import { hashLeaf, toHex } from "@verifiable-memory/merkle-log";
import bs58 from "bs58";
import type { Caller } from "../caller.js";
import type { AnchorChain } from "../proofs.js";

/** A user created by {@link createTestOwner}. */
export interface TestOwner {
  /** What the services are scoped to. */
  /** The user as a wallet session calls (every scope, no confinement). */
  readonly owner: Caller;
  /** The data key wrapped under the master key, as stored on the user row. */
  readonly wrappedDataKey: Uint8Array;
  /** The unwrapped data key (32 bytes). */
  readonly dataKey: Uint8Array;
}

/**
 * Creates a user as sign-in does (docs/protocol.md §2: upserted with a fresh data key wrapped under
 * `masterKey`, bound to the user id), its owner key a random 32-byte key in base58.
 */
export async function createTestOwner(db: Executor, masterKey: Uint8Array): Promise<TestOwner> {
  const dataKey = generateDataKey();
  const { user } = await upsertUserByPubkey(db, {
    ownerPubkey: bs58.encode(randomBytes(32)),
    makeWrappedKey: (userId) => wrapDataKey(masterKey, dataKey, userId),
  });
  return {
    owner: {
      userId: user.id,
      ownerPubkey: user.ownerPubkey,
      credential: "session",
      apiKeyId: null,
      namespace: null,
    },
    wrappedDataKey: user.wrappedDataKey,
    dataKey,
  };
}

/**
 * A version-1 wrapped data key, as sign-in stored them before wrapped keys named their master
 * key: 61 bytes 0x01 ‖ iv(12) ‖ AES-256-GCM ciphertext(32) ‖ tag(16), AAD "svc/envelope/data-key"
 * ‖ 0x00 ‖ 0x01 ‖ u32be(UTF-8 length) ‖ userId (docs/protocol.md §4.2), built here with
 * node:crypto because `@verifiable-memory/envelope-crypto` only reads that format now. For tests of rows
 * written before key ids existed.
 */
export function wrapVersionOneDataKey(
  masterKey: Uint8Array,
  dataKey: Uint8Array,
  userId: string,
): Uint8Array {
  const iv = randomBytes(12);
  const id = Buffer.from(userId, "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(id.length);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(Buffer.concat([Buffer.from("svc/envelope/data-key\0\x01", "latin1"), length, id]));
  const sealed = Buffer.concat([cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
  return new Uint8Array(Buffer.concat([Buffer.of(1), iv, sealed]));
}

/** A memory to append through an AppendQueue directly (random body, real leaf hash). */
export function appendItem(id: string = randomUUID()): NewMemory {
  return {
    id,
    ciphertext: randomBytes(40),
    iv: randomBytes(12),
    leafHash: hashLeaf(randomBytes(16)),
    metadata: {},
    createdAt: new Date(),
  };
}

/**
 * Records an anchored checkpoint of the user's log at `size` as the anchor service does after a
 * confirmed commit (marks the covered memories anchored and inserts the checkpoint in one
 * transaction), without touching a chain.
 * @returns the root of the tree of `size` leaves.
 */
export async function recordCheckpoint(
  db: Executor,
  userId: string,
  size: number,
  nonce: number,
  signature = `sig${nonce}`,
): Promise<Uint8Array> {
  const root = await rootAtSize(db, userId, size);
  await db.transaction(async (tx) => {
    await markAnchored(tx, userId, size);
    await insertAnchoredCheckpoint(tx, { userId, treeSize: size, root, nonce, signature });
  });
  return root;
}

/** The user's persisted tree head: `size` leaves and `root` in lowercase hex (size 0: none). */
export async function persistedRoot(
  db: Executor,
  userId: string,
): Promise<{ size: number; root: string }> {
  const tree = await getTree(db, userId);
  return { size: tree?.size ?? 0, root: toHex(tree?.root ?? new Uint8Array()) };
}

const NODE_PREFIX = Buffer.of(0x01);

/**
 * The Merkle Tree Hash of RFC 9162 §2.1.1 over `leaves` (leaf hashes), recomputed in full with
 * node:crypto, independently of @verifiable-memory/merkle-log: MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖
 * MTH(D[k:n])) with k the largest power of two below n; a single leaf is its leaf hash; the empty
 * tree is SHA-256 of nothing. O(n) hashes.
 * @returns the root, lowercase hex.
 */
export function fullRoot(leaves: readonly Uint8Array[]): string {
  const mth = (from: number, to: number): Uint8Array => {
    const n = to - from;
    if (n === 0) {
      return createHash("sha256").digest();
    }
    if (n === 1) {
      return leaves[from] as Uint8Array;
    }
    let k = 1;
    while (k * 2 < n) {
      k *= 2;
    }
    return createHash("sha256")
      .update(NODE_PREFIX)
      .update(mth(from, from + k))
      .update(mth(from + k, to))
      .digest();
  };
  return toHex(mth(0, leaves.length));
}

/**
 * An AnchorChain for tests that never read the chain: no commitment or checkpoint log account
 * exists, so `verify` answers `not_anchored`.
 */
export const offlineChain: AnchorChain = {
  cluster: "localnet",
  programId: "11111111111111111111111111111111",
  commitmentAccount: (owner) => `commitment-of-${owner}`,
  readCommitment: async () => null,
  readCheckpointLog: async () => null,
};
