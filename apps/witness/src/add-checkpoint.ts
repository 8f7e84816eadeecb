/**
 * The witness's `add-checkpoint` (C2SP tlog-witness "add-checkpoint"; docs/protocol.md §13.6
 * "Witnesses"): parse the body, check the log's signature, `old` against the stored size, the
 * consistency proof from the stored checkpoint, then store the new checkpoint and cosign it.
 * @module
 */
import { ProofError, verifyConsistency } from "@verifiable-memory/merkle-log";
import {
  type Cosigner,
  decodeBase64,
  NoteError,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  parseNote,
} from "@verifiable-memory/signed-note";
import type { WitnessStore } from "./state.js";

/** At most this many consistency proof lines (C2SP tlog-witness "add-checkpoint"). */
export const MAX_PROOF_LINES = 63;

/** What the witness answers: an HTTP status, its content type and body. */
export interface AddCheckpointAnswer {
  readonly status: 200 | 400 | 403 | 404 | 409 | 422;
  readonly contentType: "text/plain; charset=utf-8" | "text/x.tlog.size";
  readonly body: string;
}

/** A parsed request body. */
export interface AddCheckpointRequest {
  /** The size of the checkpoint the client believes the witness holds. */
  readonly old: number;
  /** The consistency proof hashes, 32 bytes each. */
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint note. */
  readonly note: string;
}

const SIZE = /^old (0|[1-9][0-9]{0,15})$/;

function plain(status: AddCheckpointAnswer["status"], body: string): AddCheckpointAnswer {
  return { status, contentType: "text/plain; charset=utf-8", body: `${body}\n` };
}

/**
 * Parses `old <size>\n`, up to 63 base64 hash lines, an empty line and the signed checkpoint.
 * @returns the request, or a reason when the body is malformed.
 */
export function parseAddCheckpoint(body: string): AddCheckpointRequest | string {
  const blank = body.indexOf("\n\n");
  if (blank < 0) {
    return "the body needs an old size line, proof lines, an empty line and a checkpoint";
  }
  const [oldLine = "", ...proofLines] = body.slice(0, blank).split("\n");
  const size = SIZE.exec(oldLine);
  if (!size || !Number.isSafeInteger(Number(size[1]))) {
    return "the first line must be `old <size>` (decimal, no leading zeros)";
  }
  if (proofLines.length > MAX_PROOF_LINES) {
    return `at most ${MAX_PROOF_LINES} consistency proof lines`;
  }
  const proof: Uint8Array[] = [];
  for (const line of proofLines) {
    const hash = decodeBase64(line);
    if (hash?.length !== 32) {
      return "each consistency proof line is one base64 32-byte hash";
    }
    proof.push(hash);
  }
  return { old: Number(size[1]), proof, note: body.slice(blank + 2) };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** What {@link addCheckpoint} needs. */
export interface AddCheckpointDeps {
  /** The witness's key. */
  readonly cosigner: Cosigner;
  /** The trusted log keys by origin. */
  readonly logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  readonly store: WitnessStore;
  /** Clock, ms since the epoch: the cosignature's time is its floor in seconds. */
  readonly now: () => number;
}

/**
 * Handles one `add-checkpoint` body: 400 malformed (also `old` above the checkpoint's size, or a
 * proof with `old` 0), 404 unknown origin, 403 no valid signature by the origin's keys, 409 with
 * the stored size when `old` is not it (or the same size with another root), 422 when the
 * consistency proof fails, else 200 with the cosignature line, after the new state is on disk.
 * @returns the answer (never throws for bad input).
 * @throws the file system's errors writing the state (the state is then unchanged).
 * Source: C2SP tlog-witness "add-checkpoint"; docs/protocol.md §13.6 "Witnesses".
 */
export async function addCheckpoint(
  deps: AddCheckpointDeps,
  body: string,
): Promise<AddCheckpointAnswer> {
  const request = parseAddCheckpoint(body);
  if (typeof request === "string") {
    return plain(400, request);
  }
  let text: string;
  let checkpoint: ReturnType<typeof parseCheckpoint>;
  try {
    text = parseNote(request.note).text;
    checkpoint = parseCheckpoint(text);
  } catch (error) {
    if (error instanceof NoteError) {
      return plain(400, error.message);
    }
    throw error;
  }
  const keys = deps.logs.get(checkpoint.origin);
  if (!keys) {
    return plain(404, `unknown log origin ${JSON.stringify(checkpoint.origin)}`);
  }
  try {
    openNote(request.note, keys);
  } catch (error) {
    if (error instanceof NoteError) {
      return plain(error.reason === "note_malformed" ? 400 : 403, error.message);
    }
    throw error;
  }
  const { old, proof } = request;
  if (old > checkpoint.size) {
    return plain(400, `old size ${old} is above the checkpoint's size ${checkpoint.size}`);
  }
  if (old === 0 && proof.length > 0) {
    return plain(400, "the consistency proof must be empty when the old size is 0");
  }
  return deps.store.update(checkpoint.origin, (current) => {
    const size = current?.size ?? 0;
    const conflict: AddCheckpointAnswer = {
      status: 409,
      contentType: "text/x.tlog.size",
      body: `${size}\n`,
    };
    if (
      old !== size ||
      (current && old === checkpoint.size && !sameBytes(current.root, checkpoint.rootHash))
    ) {
      return { next: null, result: conflict };
    }
    if (current && old > 0) {
      try {
        verifyConsistency(old, checkpoint.size, proof, current.root, checkpoint.rootHash);
      } catch (error) {
        if (error instanceof ProofError) {
          return { next: null, result: plain(422, `consistency proof: ${error.message}`) };
        }
        throw error;
      }
    }
    const line = deps.cosigner.cosign(text, Math.floor(deps.now() / 1000));
    return {
      next: { size: checkpoint.size, root: checkpoint.rootHash },
      result: { status: 200, contentType: "text/plain; charset=utf-8", body: line },
    };
  });
}
