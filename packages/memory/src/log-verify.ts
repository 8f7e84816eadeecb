/**
 * The server's convenience check through the checkpoint log (docs/protocol.md §6.5 "The
 * convenience check", §13.5 "The checkpoint log"): for a memory its owner's commitment account
 * does not cover yet, the bundle's `checkpointLog` is checked against the checkpoint log account
 * read from the chain: the leaf's audit path reaches the entry's root, and the entry's audit path
 * (rebuilt for the account's size when the account has moved on) reaches the on-chain root. Like
 * the account path, it trusts the API; the signed note is for third-party verifiers.
 * @module
 */
import { checkpointLogNodeSource, type Database } from "@verifiable-memory/db-schema";
import {
  fromHex,
  hashLeaf,
  inclusionProof,
  MissingNodeError,
  ProofError,
  rootFromInclusionProof,
  toHex,
} from "@verifiable-memory/merkle-log";
import { NoteError, parseCheckpoint } from "@verifiable-memory/signed-note";
import type { AnchorChain, OnChainCheckpointLog, ProofBundleView, VerifyView } from "./proofs.js";

const encoder = new TextEncoder();

/** The `checkpointLog` of a verify answer: the account as read. */
function checkedLog(
  chain: AnchorChain,
  account: OnChainCheckpointLog,
): VerifyView["checkpointLog"] {
  return {
    cluster: chain.cluster,
    programId: chain.programId,
    account: account.address,
    size: account.size,
    nonce: account.nonce,
    rootHash: toHex(account.root),
  };
}

/** The root `path` yields for `leafHash` at (`index`, `size`), or null when malformed. */
function rootOf(index: number, size: number, leafHash: Uint8Array, path: Uint8Array[]) {
  try {
    return rootFromInclusionProof(index, size, leafHash, path);
  } catch (error) {
    if (error instanceof ProofError) {
      return null;
    }
    throw error;
  }
}

/**
 * Checks leaf `leafIndex` through `bundle.checkpointLog` against the checkpoint log account read
 * from `chain` (docs/protocol.md §6.5 "The convenience check"): `not_anchored` when the account is
 * missing or does not reach the entry; `proof_invalid` when an audit path is malformed or the
 * entry is not a checkpoint; `root_mismatch` when the leaf's path misses the entry's root, the
 * account is smaller than the bundle's log or holds more than the stored log, or the entry's path
 * misses the on-chain root.
 * @throws ChainUnavailableError when the chain read fails (the route answers 503).
 */
export async function verifyThroughCheckpointLog(
  db: Database,
  chain: AnchorChain,
  leafIndex: number,
  bundle: ProofBundleView,
): Promise<VerifyView> {
  const proof = bundle.checkpointLog as NonNullable<ProofBundleView["checkpointLog"]>;
  const base = { path: "checkpoint_log" as const, checkedAgainst: null };
  const account = await chain.readCheckpointLog(proof.anchor.account);
  if (!account || proof.leafIndex >= account.size) {
    return {
      ...base,
      verified: false,
      reason: "not_anchored",
      checkpointLog: account ? checkedLog(chain, account) : null,
    };
  }
  const checkpointLog = checkedLog(chain, account);
  let entry: ReturnType<typeof parseCheckpoint>;
  try {
    entry = parseCheckpoint(proof.entry);
  } catch (error) {
    if (error instanceof NoteError) {
      return { ...base, verified: false, reason: "proof_invalid", checkpointLog };
    }
    throw error;
  }
  const userRoot = rootOf(
    leafIndex,
    entry.size,
    fromHex(bundle.leafHash),
    proof.userInclusionProof.map(fromHex),
  );
  if (userRoot === null) {
    return { ...base, verified: false, reason: "proof_invalid", checkpointLog };
  }
  if (toHex(userRoot) !== toHex(entry.rootHash) || account.size < proof.treeSize) {
    return { ...base, verified: false, reason: "root_mismatch", checkpointLog };
  }
  let path: Uint8Array[];
  try {
    path =
      account.size === proof.treeSize
        ? proof.inclusionProof.map(fromHex)
        : await inclusionProof(proof.leafIndex, account.size, checkpointLogNodeSource(db));
  } catch (error) {
    if (error instanceof MissingNodeError) {
      // The chain holds a larger checkpoint log than this database stores.
      return { ...base, verified: false, reason: "root_mismatch", checkpointLog };
    }
    throw error;
  }
  const root = rootOf(proof.leafIndex, account.size, hashLeaf(encoder.encode(proof.entry)), path);
  if (root === null) {
    return { ...base, verified: false, reason: "proof_invalid", checkpointLog };
  }
  const matches = toHex(root) === toHex(account.root);
  return { ...base, verified: matches, reason: matches ? null : "root_mismatch", checkpointLog };
}
