/**
 * Fixtures for the checkpoint-log path tests: a fixed owner with fixed memories (so the user
 * checkpoint, its signature and the checkpoint log root are known answers), an in-memory RFC 9162
 * tree, the docs/protocol.md §13.3 example log key, and bundles shaped like `GET
 * /memories/:id/proof` with `checkpointLog` (docs/protocol.md §13.5).
 */
import { createHash } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import {
  CompactRange,
  consistencyProof,
  hashLeaf,
  inclusionProof,
  MemoryNodeStore,
  toHex,
} from "@verifiable-memory/merkle-log";
import {
  formatCheckpoint,
  type NoteSigner,
  signerFromSeed,
  signNote,
  userLogOrigin,
} from "@verifiable-memory/signed-note";
import { checkpointLogAddress, contentHashOf, type LeafData, leafHashOf } from "../src/index.js";

/** The log origin (key name) of the fixtures. */
export const LOG_ORIGIN = "localhost:8787/tlog";

const sha = (text: string) => createHash("sha256").update(text).digest();

/** The docs/protocol.md §13.3 example log key: seed SHA-256("docs/protocol.md example log key"). */
export const logKey: NoteSigner = signerFromSeed(
  LOG_ORIGIN,
  sha("docs/protocol.md example log key"),
);
/** A second key under the same name (the key before a rotation). */
export const previousLogKey: NoteSigner = signerFromSeed(
  LOG_ORIGIN,
  sha("verifier previous log key"),
);

/** An append-only RFC 9162 tree kept in memory. */
export class Tree {
  readonly range = CompactRange.empty();
  readonly store = new MemoryNodeStore();

  append(leafHash: Uint8Array): number {
    this.store.put(this.range.append(leafHash));
    return this.range.size - 1;
  }

  get size(): number {
    return this.range.size;
  }

  rootHex(): string {
    return toHex(this.range.root());
  }

  async path(index: number, size = this.size): Promise<string[]> {
    return (await inclusionProof(index, size, this.store)).map((node) => toHex(node));
  }

  async consistency(from: number, to: number): Promise<string[]> {
    return (await consistencyProof(from, to, this.store)).map((node) => toHex(node));
  }
}

/** The fixed owner of the known-answer bundle. */
export const owner = Keypair.fromSeed(
  sha("verifier checkpoint-log test owner"),
).publicKey.toBase58();

/** Memory `i` of the fixed owner: fixed id, time, salt and content. */
export function memory(i: number): { leafData: LeafData; content: string; salt: Buffer } {
  const salt = sha(`salt ${i}`).subarray(0, 16);
  const content = `memory ${i} of the checkpoint-log fixture`;
  const leafData: LeafData = {
    v: 1,
    memoryId: `00000000-0000-4000-8000-00000000000${i}`,
    owner,
    createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
    metadata: { i },
    contentHash: contentHashOf(salt, content),
  };
  return { leafData, content, salt };
}

/** The owner's log of memories 0..count-1. */
export function userTree(count: number): Tree {
  const tree = new Tree();
  for (let i = 0; i < count; i++) {
    tree.append(leafHashOf(memory(i).leafData));
  }
  return tree;
}

/** The user checkpoint's note text of `tree` for `who` (docs/protocol.md §13.3). */
export function checkpointText(tree: Tree, who = owner, origin = LOG_ORIGIN): string {
  return formatCheckpoint({
    origin: userLogOrigin(origin, who),
    size: tree.size,
    rootHash: tree.range.root(),
    extensions: [],
  });
}

/** The entry of another user's checkpoint (filler for the checkpoint log). */
export function otherEntry(n: number): string {
  const other = Keypair.fromSeed(sha(`other owner ${n}`)).publicKey.toBase58();
  return checkpointText(userTree(n + 1), other);
}

/** Appends `entry` to the checkpoint log `log`, as its RFC 9162 leaf hash. */
export function appendEntry(log: Tree, entry: string): number {
  return log.append(hashLeaf(new TextEncoder().encode(entry)));
}

/** What a checkpoint-log bundle is cut from. */
export interface LogBundleParts {
  readonly index: number;
  readonly user: Tree;
  readonly signers: readonly NoteSigner[];
  readonly log: Tree;
  readonly entryIndex: number;
  readonly authority: string;
  readonly programId: string;
  readonly nonce: number;
  readonly signature: string;
}

/**
 * A proof bundle of memory `index` covered only by the checkpoint log: anchored, without the
 * owner's checkpoint (docs/protocol.md §6.1 "The proof bundle").
 */
export async function logBundle(parts: LogBundleParts) {
  const m = memory(parts.index);
  const entry = checkpointText(parts.user);
  return {
    memoryId: m.leafData.memoryId,
    leafIndex: parts.index,
    leafHash: toHex(leafHashOf(m.leafData)),
    leafData: m.leafData,
    salt: m.salt.toString("base64"),
    anchored: true,
    checkpoint: null,
    inclusionProof: null,
    anchor: null,
    checkpointLog: {
      entry,
      userCheckpoint: signNote(entry, parts.signers),
      userInclusionProof: await parts.user.path(parts.index),
      leafIndex: parts.entryIndex,
      treeSize: parts.log.size,
      rootHash: parts.log.rootHex(),
      inclusionProof: await parts.log.path(parts.entryIndex),
      anchor: {
        cluster: "localnet",
        programId: parts.programId,
        account: checkpointLogAddress(parts.authority, parts.programId),
        size: parts.log.size,
        nonce: parts.nonce,
        signature: parts.signature,
        slot: null,
      },
    },
  };
}
