/**
 * Proofs and log views (docs/protocol.md §6): inclusion proofs cut at the latest anchored checkpoint
 * (RFC 9162 §2.1.3), the log head, consistency proofs between two sizes (RFC 9162 §2.1.4), and the
 * server-side convenience check against the commitment account read from the chain.
 * @module
 */
import type { AnchoredCheckpoint, Database, Memory } from "@verifiable-memory/db-schema";
import {
  getMemoryAtLatestCheckpoint,
  getTree,
  getUserByPubkey,
  latestAnchoredCheckpoint,
  nodeSource,
  rootAtSize,
} from "@verifiable-memory/db-schema";
import {
  consistencyProof,
  EMPTY_ROOT,
  fromHex,
  inclusionProof,
  type NodeHashSource,
  ProofError,
  rootFromInclusionProof,
  toHex,
} from "@verifiable-memory/merkle-log";
import type { ProofBundle } from "@verifiable-memory/verifier";
import type { Caller, Owner } from "./caller.js";
import { InvalidRangeError, MemoryDomainError, MemoryNotFoundError } from "./errors.js";
import { type CheckpointLogProofView, checkpointLogProof } from "./log-proof.js";
import { verifyThroughCheckpointLog } from "./log-verify.js";
import { type MemoryBody, openMemoryBody } from "./memory-body.js";
import { withinConfinement } from "./memory-filter.js";
import { memoryLeaf, storedLeafFields } from "./memory-leaf.js";
import { type MemoryView, memoryView, rowViewSource } from "./memory-view.js";

/** The commitment account fields the verify route compares against. */
export interface OnChainCommitment {
  /** The PDA, base58. */
  readonly address: string;
  readonly root: Uint8Array;
  readonly memoryCount: number;
  readonly nonce: number;
}

/** Where roots are anchored, and how to read them back (`@verifiable-memory/chain-commit`). */
export interface AnchorChain {
  /** Cluster name reported in anchors ("localnet", "devnet", …). */
  readonly cluster: string;
  /** Commitment program id, base58. */
  readonly programId: string;
  /** The commitment PDA of `owner` (base58 in, base58 out). */
  commitmentAccount(owner: string): string;
  /**
   * Reads the owner's commitment account; null when none exists.
   * @throws ChainUnavailableError (`@verifiable-memory/chain-commit`) when the RPC read fails.
   */
  readCommitment(owner: string): Promise<OnChainCommitment | null>;
  /**
   * Reads the checkpoint log account at `account` (docs/protocol.md §13.5); null when none exists.
   * @throws ChainUnavailableError when the RPC read fails; InvalidCommitmentAccountError when the
   *   address holds another account.
   */
  readCheckpointLog(account: string): Promise<OnChainCheckpointLog | null>;
}

/** The checkpoint log account fields the verify route compares against. */
export interface OnChainCheckpointLog {
  /** The PDA ["checkpoint-log", authority], base58. */
  readonly address: string;
  readonly root: Uint8Array;
  readonly size: number;
  readonly nonce: number;
}

/**
 * A proof bundle as this service builds it: the verifier's ProofBundle (proof array owned) and
 * its checkpoint-log path (docs/protocol.md §6.1 "The proof bundle").
 */
export type ProofBundleView = ProofBundle & {
  readonly inclusionProof: string[] | null;
  readonly checkpointLog: CheckpointLogProofView | null;
};

/** A memory with its proof bundle nested as `proof` (docs/protocol.md §8, grant answers). */
export type MemoryWithProof = MemoryView & { readonly proof: ProofBundleView };

/** `GET /log` (docs/protocol.md §6). */
export interface LogView {
  readonly treeSize: number;
  readonly rootHash: string;
  readonly anchored: {
    readonly treeSize: number;
    readonly rootHash: string;
    readonly nonce: number;
    readonly signature: string;
  } | null;
}

/** `GET /log/consistency` (docs/protocol.md §6). */
export interface ConsistencyView {
  readonly from: number;
  readonly to: number;
  readonly fromRoot: string;
  readonly toRoot: string;
  readonly proof: string[];
}

/**
 * `GET /owners/{owner}/consistency` (docs/protocol.md §6.3, public): the RFC 9162 §2.1.4
 * consistency proof between two ANCHORED sizes of an owner's log, hashes only. `fromRoot` and
 * `toRoot` are informative: a verifier checks `proof` against roots it already trusts (the
 * bundle's, whose inclusion proof it checked, and the one read from the chain).
 */
export interface OwnerConsistencyView {
  /** The owner's wallet public key, base58. */
  readonly owner: string;
  readonly from: number;
  readonly to: number;
  /** Root of the owner's tree of `from` leaves, hex. */
  readonly fromRoot: string;
  /** Root of the owner's tree of `to` leaves, hex. */
  readonly toRoot: string;
  /** PROOF(from, D[to]), hex, in RFC 9162 §2.1.4.1 order; empty when from = to. */
  readonly proof: string[];
}

/** `GET /memories/:id/verify` (docs/protocol.md §6). */
export interface VerifyView {
  readonly verified: boolean;
  readonly reason: "not_anchored" | "root_mismatch" | "proof_invalid" | null;
  /** The path checked: the owner's commitment account, or the checkpoint log (§13.5). */
  readonly path: "account" | "checkpoint_log";
  readonly checkedAgainst: {
    readonly cluster: string;
    readonly programId: string;
    readonly account: string;
    readonly memoryCount: number;
    readonly nonce: number;
    readonly rootHash: string;
  } | null;
  /** The checkpoint log account as read (checkpoint-log path), else null. */
  readonly checkpointLog: {
    readonly cluster: string;
    readonly programId: string;
    readonly account: string;
    readonly size: number;
    readonly nonce: number;
    readonly rootHash: string;
  } | null;
}

/** Proof operations over the node store and the anchored checkpoints. */
export class ProofService {
  constructor(
    private readonly db: Database,
    private readonly chain: AnchorChain,
  ) {}

  /**
   * The proof bundle of one memory row of the owner (docs/protocol.md §6): leaf data recomputed from the
   * decrypted body, and the audit path in the tree of the latest anchored checkpoint when that
   * covers the leaf. Pass `checkpoint` when already loaded (grants load it once for many).
   * @throws MemoryNotFoundError for a deleted row; internal Error when the recomputed leaf hash
   *   differs from the stored one (a damaged row).
   */
  async bundle(
    owner: Owner,
    dataKey: Uint8Array,
    row: Memory,
    checkpoint: AnchoredCheckpoint | null,
  ): Promise<ProofBundleView> {
    return this.bundleOf(owner, row, openRow(owner, dataKey, row), checkpoint);
  }

  /**
   * `GET /memories/:id/proof` (docs/protocol.md §6): the proof bundle of the owner's memory `memoryId`,
   * as {@link bundle} builds it: ONE database statement for the row, the latest anchored
   * checkpoint and the inclusion path's nodes (getMemoryAtLatestCheckpoint, one snapshot), then
   * the reads of the checkpoint-log path. Nothing is cached, so every core-api instance on the
   * database answers the same.
   * @throws MemoryNotFoundError when the memory is unknown, deleted, another user's or outside
   *   the caller's namespace confinement; as {@link bundle} otherwise (MissingNodeError when the
   *   node store lacks a path node).
   */
  async proofOf(owner: Caller, dataKey: Uint8Array, memoryId: string): Promise<ProofBundleView> {
    const read = await getMemoryAtLatestCheckpoint(this.db, owner.userId, memoryId);
    if (!read || !withinConfinement(read.memory.namespace, owner.namespace)) {
      throw new MemoryNotFoundError();
    }
    const body = openRow(owner, dataKey, read.memory);
    return this.bundleOf(owner, read.memory, body, read.checkpoint, read.nodes);
  }

  /**
   * A memory as a capability grant shows it (docs/protocol.md §8): the memory object of docs/protocol.md §4 with
   * its proof bundle nested as `proof`; `anchored` is the bundle's (covered by `checkpoint`). The
   * body is decrypted once for both.
   * @throws as {@link bundle}.
   */
  async memoryWithProof(
    owner: Owner,
    dataKey: Uint8Array,
    row: Memory,
    checkpoint: AnchoredCheckpoint | null,
  ): Promise<MemoryWithProof> {
    const body = openRow(owner, dataKey, row);
    const proof = await this.bundleOf(owner, row, body, checkpoint);
    return { ...memoryView(rowViewSource(row), body.content, proof.anchored), proof };
  }

  /**
   * Several rows of the owner each as {@link memoryWithProof}, against ONE read of the latest
   * anchored checkpoint (`GET /memories/:id/history`).
   * @throws as {@link bundle}.
   */
  async memoriesWithProofs(
    owner: Owner,
    dataKey: Uint8Array,
    rows: readonly Memory[],
  ): Promise<MemoryWithProof[]> {
    const checkpoint = await latestAnchoredCheckpoint(this.db, owner.userId);
    return Promise.all(rows.map((row) => this.memoryWithProof(owner, dataKey, row, checkpoint)));
  }

  private async bundleOf(
    owner: Owner,
    row: Memory,
    body: MemoryBody,
    checkpoint: AnchoredCheckpoint | null,
    nodes: NodeHashSource = nodeSource(this.db, owner.userId),
  ): Promise<ProofBundleView> {
    const { leafData, leafHash } = memoryLeaf(storedLeafFields(row, owner.ownerPubkey), body);
    const storedHash = toHex(row.leafHash);
    if (toHex(leafHash) !== storedHash) {
      throw new Error(`memory ${row.id}: recomputed leaf hash differs from the stored one`);
    }
    const checkpointLog = await checkpointLogProof(
      this.db,
      this.chain,
      owner.userId,
      row.leafIndex,
    );
    const base = {
      memoryId: row.id,
      leafIndex: row.leafIndex,
      leafHash: storedHash,
      leafData,
      salt: Buffer.from(body.salt).toString("base64"),
      checkpointLog,
    };
    if (!checkpoint || row.leafIndex >= checkpoint.treeSize) {
      return {
        ...base,
        anchored: checkpointLog !== null,
        checkpoint: null,
        inclusionProof: null,
        anchor: null,
      };
    }
    const path = await inclusionProof(row.leafIndex, checkpoint.treeSize, nodes);
    return {
      ...base,
      anchored: true,
      checkpoint: { treeSize: checkpoint.treeSize, rootHash: toHex(checkpoint.root) },
      inclusionProof: path.map(toHex),
      anchor: {
        cluster: this.chain.cluster,
        programId: this.chain.programId,
        account: this.chain.commitmentAccount(owner.ownerPubkey),
        memoryCount: checkpoint.treeSize,
        nonce: checkpoint.nonce,
        signature: checkpoint.signature,
      },
    };
  }

  /** The owner's latest anchored checkpoint, or null. */
  latestCheckpoint(owner: Owner): Promise<AnchoredCheckpoint | null> {
    return latestAnchoredCheckpoint(this.db, owner.userId);
  }

  /** `GET /log`: the persisted tree head and the latest anchored checkpoint. */
  async log(owner: Owner): Promise<LogView> {
    const [tree, checkpoint] = await Promise.all([
      getTree(this.db, owner.userId),
      latestAnchoredCheckpoint(this.db, owner.userId),
    ]);
    return {
      treeSize: tree?.size ?? 0,
      rootHash: toHex(tree?.root ?? EMPTY_ROOT),
      anchored: checkpoint
        ? {
            treeSize: checkpoint.treeSize,
            rootHash: toHex(checkpoint.root),
            nonce: checkpoint.nonce,
            signature: checkpoint.signature,
          }
        : null,
    };
  }

  /**
   * `GET /log/consistency`: PROOF(from, D[to]) with both roots.
   * @throws InvalidRangeError unless 1 ≤ from ≤ to ≤ the current tree size.
   */
  async consistency(owner: Owner, from: number, to: number): Promise<ConsistencyView> {
    const tree = await getTree(this.db, owner.userId);
    const size = tree?.size ?? 0;
    if (!(from >= 1 && from <= to && to <= size)) {
      throw new InvalidRangeError(from, to, size);
    }
    const { proof, fromRoot, toRoot } = await this.proofBetween(owner.userId, from, to);
    return { from, to, fromRoot, toRoot, proof };
  }

  /**
   * `GET /owners/{owner}/consistency` (public, no credential; docs/protocol.md §6.3): the RFC
   * 9162 §2.1.4.1 proof PROOF(from, D[to]) of the log of the user whose wallet key is
   * `ownerPubkey`, with the roots at both sizes. Only ANCHORED sizes are served (the chain already
   * shows the latest `memoryCount`): `to` may not exceed the size of the owner's latest anchored
   * checkpoint. This is what lets a stranger bridge an old proof bundle, cut at an earlier
   * anchored size, to the root on chain now (RFC 9162 §2.1.4.2 verification, in @verifiable-memory/verifier).
   * @param ownerPubkey the owner's wallet public key, base58.
   * @returns `{ owner, from, to, fromRoot, toRoot, proof }`, hashes as lowercase hex.
   * @throws MemoryDomainError `not_found` when no user has that key or the user's log was never
   *   anchored (the two are indistinguishable, so the route does not reveal who signed up).
   * @throws MemoryDomainError `invalid_request` unless 1 ≤ from ≤ to ≤ the latest anchored size
   *   (`details[0].path` is `["to"]` when `to` is past it, else `["from"]`).
   */
  async ownerConsistency(
    ownerPubkey: string,
    from: number,
    to: number,
  ): Promise<OwnerConsistencyView> {
    const user = await getUserByPubkey(this.db, ownerPubkey);
    const checkpoint = user ? await latestAnchoredCheckpoint(this.db, user.id) : null;
    if (!user || !checkpoint) {
      throw new MemoryDomainError("not_found", "no anchored log for this owner");
    }
    const anchored = checkpoint.treeSize;
    if (!(from >= 1 && from <= to && to <= anchored)) {
      throw new MemoryDomainError(
        "invalid_request",
        `need 1 <= from <= to <= the latest anchored size (${anchored})`,
        [
          {
            path: [to > anchored ? "to" : "from"],
            message: `from=${from}, to=${to}, latest anchored size=${anchored}`,
          },
        ],
      );
    }
    const { proof, fromRoot, toRoot } = await this.proofBetween(user.id, from, to);
    return { owner: ownerPubkey, from, to, fromRoot, toRoot, proof };
  }

  /**
   * The latest anchored checkpoint of the user whose wallet key is `ownerPubkey`: what
   * `GET /owners/{owner}/checkpoint` signs (docs/protocol.md §13.3 "User checkpoints"). Public:
   * the chain shows the same size and root.
   * @returns the checkpoint row (tree size, 32-byte root, nonce, transaction signature).
   * @throws MemoryDomainError `not_found` when no user has that key or the log was never anchored
   *   (indistinguishable, as in {@link ProofService.ownerConsistency}).
   */
  async ownerLatestCheckpoint(ownerPubkey: string): Promise<AnchoredCheckpoint> {
    const user = await getUserByPubkey(this.db, ownerPubkey);
    const checkpoint = user ? await latestAnchoredCheckpoint(this.db, user.id) : null;
    if (!checkpoint) {
      throw new MemoryDomainError("not_found", "no anchored log for this owner");
    }
    return checkpoint;
  }

  /** PROOF(from, D[to]) of the user's log and its roots at both sizes, hex; 1 ≤ from ≤ to ≤ size. */
  private async proofBetween(
    userId: string,
    from: number,
    to: number,
  ): Promise<{ proof: string[]; fromRoot: string; toRoot: string }> {
    const source = nodeSource(this.db, userId);
    const [proof, fromRoot, toRoot] = await Promise.all([
      consistencyProof(from, to, source),
      rootAtSize(this.db, userId, from),
      rootAtSize(this.db, userId, to),
    ]);
    return { proof: proof.map(toHex), fromRoot: toHex(fromRoot), toRoot: toHex(toRoot) };
  }

  /**
   * `GET /memories/:id/verify`: reads the owner's commitment account from the chain and checks
   * the memory's leaf against the on-chain root and count. When the chain is ahead of the
   * recorded checkpoint (a commit confirmed, its checkpoint not yet written), the audit path is
   * rebuilt for the on-chain count, so the check is always against the chain's own tip. A memory
   * the owner's account does not cover yet but the checkpoint log does is checked through it
   * ({@link verifyThroughCheckpointLog}).
   * @throws ChainUnavailableError when the chain read fails (the route answers 503).
   */
  async verify(owner: Owner, dataKey: Uint8Array, row: Memory): Promise<VerifyView> {
    const bundle = await this.bundle(owner, dataKey, row, await this.latestCheckpoint(owner));
    const account = await this.chain.readCommitment(owner.ownerPubkey);
    const onAccount = { path: "account" as const, checkpointLog: null };
    if (!account || account.memoryCount === 0 || row.leafIndex >= account.memoryCount) {
      if (bundle.checkpointLog) {
        return verifyThroughCheckpointLog(this.db, this.chain, row.leafIndex, bundle);
      }
      return {
        verified: false,
        reason: "not_anchored",
        checkedAgainst: account ? this.checkedAgainst(account) : null,
        ...onAccount,
      };
    }
    const checkedAgainst = this.checkedAgainst(account);
    const tree = await getTree(this.db, owner.userId);
    if (!tree || account.memoryCount > tree.size) {
      return { verified: false, reason: "root_mismatch", checkedAgainst, ...onAccount };
    }
    const path =
      bundle.checkpoint?.treeSize === account.memoryCount && bundle.inclusionProof
        ? bundle.inclusionProof.map(fromHex)
        : await inclusionProof(
            row.leafIndex,
            account.memoryCount,
            nodeSource(this.db, owner.userId),
          );
    let root: Uint8Array;
    try {
      root = rootFromInclusionProof(
        row.leafIndex,
        account.memoryCount,
        fromHex(bundle.leafHash),
        path,
      );
    } catch (error) {
      if (error instanceof ProofError) {
        return { verified: false, reason: "proof_invalid", checkedAgainst, ...onAccount };
      }
      throw error;
    }
    const matches = toHex(root) === toHex(account.root);
    return {
      verified: matches,
      reason: matches ? null : "root_mismatch",
      checkedAgainst,
      ...onAccount,
    };
  }

  private checkedAgainst(account: OnChainCommitment): NonNullable<VerifyView["checkedAgainst"]> {
    return {
      cluster: this.chain.cluster,
      programId: this.chain.programId,
      account: account.address,
      memoryCount: account.memoryCount,
      nonce: account.nonce,
      rootHash: toHex(account.root),
    };
  }
}

/**
 * Opens a live row's body.
 * @throws MemoryNotFoundError for a deleted row (no body left); DecryptionError for a damaged one.
 */
function openRow(owner: Owner, dataKey: Uint8Array, row: Memory): MemoryBody {
  if (row.ciphertext === null || row.iv === null) {
    throw new MemoryNotFoundError();
  }
  return openMemoryBody(
    dataKey,
    { ciphertext: row.ciphertext, iv: row.iv },
    { userId: owner.userId, memoryId: row.id },
  );
}
