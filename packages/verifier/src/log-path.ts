/**
 * The checkpoint-log path of {@link verifyBundle} (docs/protocol.md §13.5 "The checkpoint log";
 * docs/verification.md): the memory's leaf is in the user checkpoint the log key signed, that
 * checkpoint's text is an entry of the deployment's checkpoint log, and that log's root and size
 * are the ones its checkpoint log account holds on chain (or an older size the account's log
 * provably extends). Each step is checked against what the verifier pinned (log keys, authority,
 * program id) or read itself (the account); nothing the API adds is trusted.
 * @module
 */
import { findCheckpointLogAddress } from "@verifiable-memory/commitment-account";
import {
  fromHex,
  hashLeaf,
  ProofError,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import {
  type Checkpoint,
  NoteError,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  userLogOrigin,
} from "@verifiable-memory/signed-note";
import { ChainReadError, InvalidAccountError, type ReadAccountOptions } from "./account.js";
import type { CheckpointLogProof } from "./bundle.js";
import { type FetchLogConsistency, proofOfAnswer } from "./consistency.js";
import { readCheckpointLogAccount } from "./log-account.js";
import type { CheckLog, VerifyResult } from "./result.js";

/** What the checkpoint-log path is given besides the bundle. */
export interface LogPathInput {
  readonly log: CheckLog;
  readonly proof: CheckpointLogProof;
  readonly owner: string;
  readonly leafIndex: number;
  readonly leafHash: Uint8Array;
  readonly rpcUrl: string;
  readonly readOptions: ReadAccountOptions;
  /** The program id to pin; default the bundle's `checkpointLog.anchor.programId`. */
  readonly programId: string | undefined;
  /** The authority to pin, base58. */
  readonly authority: string | undefined;
  /** The trusted log keys, or the reason none could be had. */
  readonly keys: readonly NoteVerifier[] | { readonly unavailable: string };
  readonly fetchLogConsistency: FetchLogConsistency | null;
}

const encoder = new TextEncoder();

/** Runs `step`: null when it passes, the reason of the ProofError it throws; others rethrow. */
function proofFails(step: () => void): string | null {
  try {
    step();
    return null;
  } catch (error) {
    if (error instanceof ProofError) {
      return error.reason;
    }
    throw error;
  }
}

/** Opens the signed user checkpoint; the result names the key that verified it. */
function openUserCheckpoint(
  input: LogPathInput,
  keys: readonly NoteVerifier[],
): { checkpoint: Checkpoint; text: string; vkey: string } | VerifyResult {
  const { log, proof, owner } = input;
  try {
    const opened = openNote(proof.userCheckpoint, keys);
    const checkpoint = parseCheckpoint(opened.text);
    const signer = opened.verified[0];
    const key = keys.find((k) => k.name === signer?.name && k.keyId === signer?.keyId);
    const origin = userLogOrigin(signer?.name ?? "", owner);
    if (key === undefined || checkpoint.origin !== origin) {
      return log.fail(
        "note",
        "note_malformed",
        `the user checkpoint's origin is ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(origin)}`,
      );
    }
    return { checkpoint, text: opened.text, vkey: key.vkey };
  } catch (error) {
    if (error instanceof NoteError) {
      // openNote and parseCheckpoint refuse with these two reasons only.
      const reason = error.reason === "note_signature_invalid" ? error.reason : "note_malformed";
      return log.fail("note", reason, `the signed user checkpoint: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Verifies the bundle's `checkpointLog` (docs/protocol.md §13.3 "User checkpoints", §13.5 "The
 * checkpoint log"), after the leaf (and content) checks: the user checkpoint signed by a trusted
 * log key with origin `<key name>/users/<owner>` (`note_malformed`, `note_signature_invalid`);
 * `entry` equal to its text (`entry_mismatch`); the leaf's audit path to its root at its size
 * (RFC 9162 §2.1.3.2, `proof_invalid`); the entry's RFC 9162 leaf hash's audit path to
 * `rootHash` at `treeSize` (`log_inclusion_invalid`); the checkpoint log account at
 * `anchor.account`, which must be the PDA of the pinned authority when one is pinned
 * (`account_mismatch`), read from the chain (`chain_unavailable`, `log_account_not_found`,
 * `invalid_account`, `authority_mismatch`); then (treeSize, rootHash) equal to the account's
 * (size, root), or, when the account is larger, bridged by PROOF(treeSize, D[size]) verified
 * against the account's root (`stale_checkpoint` without a fetcher, `consistency_unavailable`,
 * `consistency_invalid`); a larger or different bundle is `log_checkpoint_mismatch`.
 * @returns the result (never throws for bad input, an unreachable chain or API).
 */
export async function verifyThroughCheckpointLog(input: LogPathInput): Promise<VerifyResult> {
  const { log, proof, leafIndex, leafHash } = input;
  if (!Array.isArray(input.keys)) {
    return log.fail(
      "log_key",
      "note_signature_invalid",
      `no trusted log key: ${(input.keys as { unavailable: string }).unavailable}`,
    );
  }
  const keys = input.keys as readonly NoteVerifier[];
  log.pass("log_key", `${keys.length} trusted log key(s): ${keys.map((k) => k.vkey).join(", ")}`);

  const opened = openUserCheckpoint(input, keys);
  if ("verified" in opened) {
    return opened;
  }
  const { checkpoint, text, vkey } = opened;
  log.logKey = vkey;
  log.pass(
    "note",
    `the user checkpoint ${checkpoint.origin} at size ${checkpoint.size} is signed by ${vkey}`,
  );
  if (proof.entry !== text) {
    return log.fail(
      "entry",
      "entry_mismatch",
      "the checkpoint log entry is not the signed user checkpoint's text",
    );
  }
  log.pass("entry", "the checkpoint log entry is the signed user checkpoint's text");

  const userFailure = proofFails(() =>
    verifyInclusion(
      leafIndex,
      checkpoint.size,
      leafHash,
      proof.userInclusionProof.map((node) => fromHex(node)),
      checkpoint.rootHash,
    ),
  );
  if (userFailure !== null) {
    return log.fail(
      "inclusion",
      "proof_invalid",
      `the inclusion proof of leaf ${leafIndex} does not lead to the signed root at size ${checkpoint.size} (${userFailure})`,
    );
  }
  log.pass(
    "inclusion",
    `leaf ${leafIndex} is in the signed user checkpoint of size ${checkpoint.size}`,
  );

  const entryHash = hashLeaf(encoder.encode(proof.entry));
  const logFailure = proofFails(() =>
    verifyInclusion(
      proof.leafIndex,
      proof.treeSize,
      entryHash,
      proof.inclusionProof.map((node) => fromHex(node)),
      fromHex(proof.rootHash),
    ),
  );
  if (logFailure !== null) {
    return log.fail(
      "log_inclusion",
      "log_inclusion_invalid",
      `the entry's inclusion proof does not lead to the checkpoint log root at size ${proof.treeSize} (${logFailure})`,
    );
  }
  log.pass(
    "log_inclusion",
    `the entry is leaf ${proof.leafIndex} of the checkpoint log of size ${proof.treeSize}`,
  );
  return againstAccount(input);
}

/** The checkpoint log account steps of {@link verifyThroughCheckpointLog}. */
async function againstAccount(input: LogPathInput): Promise<VerifyResult> {
  const { log, proof } = input;
  const { account } = proof.anchor;
  const programId = input.programId ?? proof.anchor.programId;
  if (input.authority !== undefined) {
    let expected: string;
    try {
      expected = findCheckpointLogAddress(input.authority, programId).address;
    } catch {
      return log.fail(
        "account",
        "malformed_bundle",
        "the authority or the program id is not a base58 public key",
      );
    }
    if (expected !== account) {
      return log.fail(
        "account",
        "account_mismatch",
        `the checkpoint log PDA of ${input.authority} under program ${programId} is ${expected}, not ${account}`,
      );
    }
    log.pass(
      "account",
      `the checkpoint log PDA of ${input.authority} under program ${programId} is ${account}`,
    );
  }
  try {
    log.checkpointLog = await readCheckpointLogAccount(
      input.rpcUrl,
      account,
      programId,
      input.readOptions,
    );
  } catch (error) {
    if (error instanceof ChainReadError) {
      return log.fail("chain", "chain_unavailable", `could not read the chain: ${error.message}`);
    }
    if (error instanceof InvalidAccountError) {
      return log.fail("chain", "invalid_account", error.message);
    }
    if (error instanceof TypeError) {
      return log.fail("chain", "malformed_bundle", "the program id is not a base58 public key");
    }
    throw error;
  }
  const onChain = log.checkpointLog;
  if (onChain === null) {
    return log.fail("chain", "log_account_not_found", `no checkpoint log account at ${account}`);
  }
  log.pass(
    "chain",
    `read from the chain: checkpoint log size ${onChain.size}, root ${onChain.root}, nonce ${onChain.nonce}`,
  );
  if (input.authority !== undefined) {
    if (onChain.authority !== input.authority) {
      return log.fail(
        "authority",
        "authority_mismatch",
        `the account's authority is ${onChain.authority}, not ${input.authority}`,
      );
    }
    log.pass("authority", `the account's authority is ${onChain.authority}`);
  }
  const { treeSize, rootHash } = proof;
  if (treeSize === onChain.size && rootHash === onChain.root) {
    log.pass(
      "log_checkpoint",
      `the bundle's checkpoint log (size ${treeSize}) is the one on chain`,
    );
    return log.verified(verifiedMessage(input, onChain.size));
  }
  if (treeSize >= onChain.size) {
    return log.fail(
      "log_checkpoint",
      "log_checkpoint_mismatch",
      `the bundle's checkpoint log (size ${treeSize}, root ${rootHash}) is not the one on chain (size ${onChain.size}, root ${onChain.root})`,
    );
  }
  if (input.fetchLogConsistency === null) {
    return log.fail(
      "log_checkpoint",
      "stale_checkpoint",
      `the bundle's checkpoint log (size ${treeSize}) is older than the one on chain (size ${onChain.size}); fetch a fresh proof, or give the API's URL to bridge it with a consistency proof`,
    );
  }
  log.pass(
    "log_checkpoint",
    `the bundle's checkpoint log (size ${treeSize}) is older than the one on chain (size ${onChain.size}): bridged by a consistency proof`,
  );
  return bridgeLog(input, treeSize, onChain.size, fromHex(rootHash), fromHex(onChain.root));
}

/** Bridges the checkpoint log from the bundle's size to the account's (RFC 9162 §2.1.4.2). */
async function bridgeLog(
  input: LogPathInput,
  from: number,
  to: number,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
): Promise<VerifyResult> {
  const { log } = input;
  let answer: unknown;
  try {
    answer = await (input.fetchLogConsistency as FetchLogConsistency)({ from, to });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return log.fail(
      "consistency",
      "consistency_unavailable",
      `no consistency proof of the checkpoint log from size ${from} to ${to} could be obtained: ${detail}`,
    );
  }
  const nodes = proofOfAnswer(answer);
  if (nodes === null) {
    return log.fail(
      "consistency",
      "consistency_invalid",
      "the consistency answer carries no proof of 64-lowercase-hex nodes",
    );
  }
  const failure = proofFails(() =>
    verifyConsistency(
      from,
      to,
      nodes.map((node) => fromHex(node)),
      fromRoot,
      toRoot,
    ),
  );
  if (failure !== null) {
    return log.fail(
      "consistency",
      "consistency_invalid",
      `the consistency proof of the checkpoint log from size ${from} to ${to} does not link the bundle's root to the on-chain root (${failure})`,
    );
  }
  log.pass(
    "consistency",
    `the consistency proof ${from} → ${to} (${nodes.length} nodes) links the bundle's checkpoint log root to the on-chain root`,
  );
  return log.verified(verifiedMessage(input, to), { from, to, proof: nodes });
}

function verifiedMessage(input: LogPathInput, size: number): string {
  return `leaf ${input.leafIndex} is in the signed user checkpoint logged as entry ${input.proof.leafIndex} of the checkpoint log whose ${size} entries are committed at ${input.proof.anchor.account}`;
}
