/**
 * The checkpoint-log path of a proof bundle (docs/protocol.md §6.1 "The proof bundle", §13.5
 * "The checkpoint log"): the earliest logged user checkpoint that covers a memory, the memory's
 * audit path in the user's tree at that checkpoint's size, and the entry's audit path in the
 * checkpoint log at its latest head confirmed on chain, with that head's anchor; and the checkpoint
 * log's consistency proofs (`GET /tlog/consistency`).
 * @module
 */
import {
  checkpointLogNodeSource,
  checkpointLogRootAt,
  type Database,
  latestAnchoredCheckpointLogHead,
  latestCheckpointLogHead,
  loggedCheckpointCovering,
  nodeSource,
} from "@verifiable-memory/db-schema";
import {
  consistencyProof,
  inclusionProof,
  type NodeHashSource,
  toHex,
} from "@verifiable-memory/merkle-log";
import { MemoryDomainError } from "./errors.js";

/** `checkpointLog` of a proof bundle: every part hex or text, as docs/protocol.md §6.1 lists. */
export interface CheckpointLogProofView {
  /** The user checkpoint's note text (origin, size and base64 root lines), unsigned. */
  readonly entry: string;
  /** The same user checkpoint as a signed note (log key, key name LOG_ORIGIN). */
  readonly userCheckpoint: string;
  /** RFC 9162 audit path of the memory's leaf in the user's tree at the entry's size, hex. */
  readonly userInclusionProof: string[];
  /** The entry's index in the checkpoint log. */
  readonly leafIndex: number;
  /** Size of the checkpoint log at its latest anchored head. */
  readonly treeSize: number;
  /** Root of the checkpoint log at `treeSize`, hex. */
  readonly rootHash: string;
  /** RFC 9162 audit path of the entry in the checkpoint log of `treeSize` entries, hex. */
  readonly inclusionProof: string[];
  /** The confirmed transaction that put (`rootHash`, `treeSize`) in the checkpoint log account. */
  readonly anchor: {
    readonly cluster: string;
    readonly programId: string;
    /** The checkpoint log account (PDA ["checkpoint-log", authority]), base58. */
    readonly account: string;
    /** = `treeSize`. */
    readonly size: number;
    /** The account's nonce after that transaction. */
    readonly nonce: number;
    /** The transaction, base58. */
    readonly signature: string;
    readonly slot: number;
  };
}

const decoder = new TextDecoder();

/**
 * The checkpoint-log path of leaf `leafIndex` of the user's log: the user's earliest logged
 * checkpoint (lowest checkpoint-log index) covering it, provided that entry lies below the
 * checkpoint log's latest anchored head.
 * @param chain the cluster name and program id reported in the anchor.
 * @param nodes the user's node store (default: read from `db`).
 * @returns the path, or null when no logged user checkpoint under an anchored head covers the
 *   leaf (or the latest anchored head predates recorded anchor accounts).
 * @throws MissingNodeError when a node of either audit path is missing (a damaged store).
 * Source: docs/protocol.md §6.1 "The proof bundle"; RFC 9162 §2.1.3.
 */
export async function checkpointLogProof(
  db: Database,
  chain: { readonly cluster: string; readonly programId: string },
  userId: string,
  leafIndex: number,
  nodes: NodeHashSource = nodeSource(db, userId),
): Promise<CheckpointLogProofView | null> {
  const [logged, head] = await Promise.all([
    loggedCheckpointCovering(db, userId, leafIndex),
    latestAnchoredCheckpointLogHead(db),
  ]);
  if (
    !logged ||
    !head ||
    logged.leafIndex >= head.treeSize ||
    head.anchorSignature === null ||
    head.anchorAccount === null ||
    head.anchorNonce === null ||
    head.anchorSlot === null
  ) {
    return null;
  }
  const [userPath, logPath] = await Promise.all([
    inclusionProof(leafIndex, logged.treeSize, nodes),
    inclusionProof(logged.leafIndex, head.treeSize, checkpointLogNodeSource(db)),
  ]);
  return {
    entry: decoder.decode(logged.entry),
    userCheckpoint: logged.note,
    userInclusionProof: userPath.map(toHex),
    leafIndex: logged.leafIndex,
    treeSize: head.treeSize,
    rootHash: toHex(head.root),
    inclusionProof: logPath.map(toHex),
    anchor: {
      cluster: chain.cluster,
      programId: chain.programId,
      account: head.anchorAccount,
      size: head.treeSize,
      nonce: head.anchorNonce,
      signature: head.anchorSignature,
      slot: head.anchorSlot,
    },
  };
}

/** `GET /tlog/consistency` (docs/protocol.md §13.5): the checkpoint log's consistency proof. */
export interface CheckpointLogConsistencyView {
  readonly from: number;
  readonly to: number;
  /** Root of the checkpoint log at `from` entries, hex (informative). */
  readonly fromRoot: string;
  /** Root of the checkpoint log at `to` entries, hex (informative). */
  readonly toRoot: string;
  /** PROOF(from, D[to]), hex, in RFC 9162 §2.1.4.1 order; empty when from = to. */
  readonly proof: string[];
}

/**
 * The RFC 9162 §2.1.4 consistency proof of the checkpoint log between sizes `from` and `to`, with
 * its roots at both, for 1 ≤ from ≤ to ≤ the latest signed size.
 * @returns `{ from, to, fromRoot, toRoot, proof }`, hashes as lowercase hex.
 * @throws MemoryDomainError `invalid_request` when `from` > `to` (`details[0].path` ["from"]) or
 *   `to` is past the latest signed size (["to"]); MissingNodeError for a damaged node store.
 * Source: docs/protocol.md §13.5 "The checkpoint log"; RFC 9162 §2.1.4.
 */
export async function checkpointLogConsistency(
  db: Database,
  from: number,
  to: number,
): Promise<CheckpointLogConsistencyView> {
  const signed = (await latestCheckpointLogHead(db))?.treeSize ?? 0;
  if (!(from >= 1 && from <= to && to <= signed)) {
    throw new MemoryDomainError(
      "invalid_request",
      `need 1 <= from <= to <= the latest signed size of the checkpoint log (${signed})`,
      [
        {
          path: [to > signed ? "to" : "from"],
          message: `from=${from}, to=${to}, latest signed size=${signed}`,
        },
      ],
    );
  }
  const [proof, fromRoot, toRoot] = await Promise.all([
    consistencyProof(from, to, checkpointLogNodeSource(db)),
    checkpointLogRootAt(db, from),
    checkpointLogRootAt(db, to),
  ]);
  return { from, to, fromRoot: toHex(fromRoot), toRoot: toHex(toRoot), proof: proof.map(toHex) };
}
