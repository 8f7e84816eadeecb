/**
 * Test fixtures: users with real wallet keys and memories with real docs/protocol.md §4 leaves (salted
 * content hash, RFC 8785 leaf data, RFC 9162 leaf hash), appended with db-schema's appendMemories
 * directly (no HTTP API), and the docs/protocol.md §6 proof bundle built from the database exactly as
 * `GET /memories/:id/proof` does (latest anchored checkpoint, audit path from the node store).
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import {
  appendMemories,
  type Executor,
  getMemory,
  latestAnchoredCheckpoint,
  nodeSource,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { inclusionProof, toHex } from "@verifiable-memory/merkle-log";
import {
  commitmentAddress,
  contentHashOf,
  type LeafData,
  leafHashOf,
} from "@verifiable-memory/verifier";

/** A user of the tests. */
export interface TestUser {
  readonly id: string;
  readonly ownerPubkey: string;
}

/** A memory appended by {@link seedMemories}, with what a reader of its plaintext holds. */
export interface SeededMemory {
  readonly id: string;
  readonly userId: string;
  readonly leafIndex: number;
  readonly content: string;
  readonly salt: Uint8Array;
  readonly leafData: LeafData;
  readonly leafHash: string;
}

/** Creates a user whose owner key is a fresh ed25519 public key. */
export async function makeUser(db: Executor): Promise<TestUser> {
  const { user } = await upsertUserByPubkey(db, {
    ownerPubkey: Keypair.generate().publicKey.toBase58(),
    makeWrappedKey: () => randomBytes(60),
  });
  return { id: user.id, ownerPubkey: user.ownerPubkey };
}

/** Appends `n` memories created at `createdAt` to the user's log, in one appendMemories call. */
export async function seedMemories(
  db: Executor,
  user: TestUser,
  n: number,
  createdAt: Date = new Date(),
): Promise<SeededMemory[]> {
  const drafts = Array.from({ length: n }, (_, i) => {
    const id = randomUUID();
    const salt = randomBytes(16);
    const content = `memory ${i} of ${user.ownerPubkey.slice(0, 6)}: ${randomBytes(6).toString("hex")}`;
    const leafData: LeafData = {
      v: 1,
      memoryId: id,
      owner: user.ownerPubkey,
      createdAt: createdAt.toISOString(),
      metadata: { seq: i },
      contentHash: contentHashOf(salt, content),
    };
    return { id, salt, content, leafData, leafHash: leafHashOf(leafData) };
  });
  const { items } = await appendMemories(
    db,
    user.id,
    drafts.map((d) => ({
      id: d.id,
      ciphertext: randomBytes(48),
      iv: randomBytes(12),
      leafHash: d.leafHash,
      metadata: d.leafData.metadata as Record<string, unknown>,
      createdAt,
    })),
  );
  return drafts.map((d, i) => ({
    id: d.id,
    userId: user.id,
    leafIndex: items[i]?.leafIndex ?? -1,
    content: d.content,
    salt: d.salt,
    leafData: d.leafData,
    leafHash: toHex(d.leafHash),
  }));
}

/** Where the tests' commitments live. */
export interface AnchorTarget {
  readonly cluster: string;
  readonly programId: string;
}

/**
 * The docs/protocol.md §6 proof bundle of `memory`, cut at the user's latest anchored checkpoint (or the
 * unanchored shape when none covers it). `content` is added when `withContent`.
 */
export async function proofBundle(
  db: Executor,
  memory: SeededMemory,
  target: AnchorTarget,
  withContent = false,
): Promise<Record<string, unknown>> {
  const row = await getMemory(db, memory.userId, memory.id, { includeDeleted: true });
  const checkpoint = await latestAnchoredCheckpoint(db, memory.userId);
  const covered =
    row?.anchored === true && checkpoint !== null && memory.leafIndex < checkpoint.treeSize;
  const base = {
    memoryId: memory.id,
    leafIndex: memory.leafIndex,
    leafHash: memory.leafHash,
    leafData: memory.leafData,
    salt: Buffer.from(memory.salt).toString("base64"),
    ...(withContent ? { content: memory.content } : {}),
  };
  if (!covered || !checkpoint) {
    return { ...base, anchored: false, checkpoint: null, inclusionProof: null, anchor: null };
  }
  const proof = await inclusionProof(
    memory.leafIndex,
    checkpoint.treeSize,
    nodeSource(db, memory.userId),
  );
  return {
    ...base,
    anchored: true,
    checkpoint: { treeSize: checkpoint.treeSize, rootHash: toHex(checkpoint.root) },
    inclusionProof: proof.map((node) => toHex(node)),
    anchor: {
      cluster: target.cluster,
      programId: target.programId,
      account: commitmentAddress(memory.leafData.owner, target.programId),
      memoryCount: checkpoint.treeSize,
      nonce: checkpoint.nonce,
      signature: checkpoint.signature,
    },
  };
}
