/**
 * The log's side of C2SP tlog-witness (docs/protocol.md §13.6 "Witnesses"): the leader submits
 * the latest checkpoint-log head to every configured witness that has not cosigned it, with `old`
 * = the largest size that witness cosigned before and the consistency proof from the stored log;
 * resends once on 409 with the size the witness reports; checks and stores the cosignature lines.
 * It runs in the background: anchoring never waits for witnesses.
 * @module
 */
import {
  checkpointLogCosignatureLines,
  checkpointLogNodeSource,
  type Database,
  latestCheckpointLogHead,
  latestCosignedSize,
  recordCheckpointLogCosignature,
} from "@verifiable-memory/db-schema";
import { consistencyProof } from "@verifiable-memory/merkle-log";
import {
  cosignatureTime,
  encodeBase64,
  type NoteVerifier,
  parseCosignerVerifierKey,
  parseNote,
} from "@verifiable-memory/signed-note";
import type { Logger } from "pino";
import type { AnchorMetrics } from "./metrics.js";

/** One request to a witness gives up after this many milliseconds. */
export const WITNESS_TIMEOUT_MS = 10_000;

/** A configured witness: its verifier key (type 0x04) and its submission URL prefix. */
export interface Witness {
  readonly verifier: NoteVerifier;
  /** The submission prefix; requests go to `<url>/add-checkpoint`. */
  readonly url: string;
}

/** The outcome of one submission (the label of `anchor_witness_submissions_total`). */
export type WitnessOutcome = "cosigned" | "conflict" | "rejected" | "invalid" | "unavailable";

/**
 * Parses WITNESS_URLS: comma-separated `<witness vkey>@<http(s) URL>` (a URL's trailing `/` is
 * dropped).
 * @returns the witnesses, in order.
 * @throws Error naming the entry that is not of that form or whose vkey is not a type 0x04
 *   witness key (NoteError's message).
 */
export function parseWitnessUrls(value: string): Witness[] {
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map((entry, index) => {
      const match = /^(.+)@(https?:\/\/[^\s@]+)$/.exec(entry);
      if (!match) {
        throw new Error(`entry ${index + 1} must be <witness vkey>@<http(s) URL>`);
      }
      try {
        new URL(match[2] as string);
        return {
          verifier: parseCosignerVerifierKey(match[1] as string),
          url: (match[2] as string).replace(/\/+$/, ""),
        };
      } catch (error) {
        throw new Error(`entry ${index + 1}: ${(error as Error).message}`);
      }
    });
}

/** What {@link submitHead} and {@link createWitnessSubmitter} need. */
export interface WitnessDeps {
  readonly db: Database;
  readonly logger: Logger;
  readonly metrics: AnchorMetrics;
  /** Per-request timeout, ms (default {@link WITNESS_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

interface Head {
  readonly treeSize: number;
  readonly note: string;
}

async function requestBody(db: Database, old: number, head: Head): Promise<string> {
  const proof =
    old === 0 || old === head.treeSize
      ? []
      : await consistencyProof(old, head.treeSize, checkpointLogNodeSource(db));
  return `old ${old}\n${proof.map((hash) => `${encodeBase64(hash)}\n`).join("")}\n${head.note}`;
}

/**
 * The witness's valid cosignature line of `head` in `answer`, with its time, or null. Lines by
 * other keys, and lines that do not verify, are ignored.
 */
function validCosignature(
  witness: NoteVerifier,
  head: Head,
  answer: string,
): { line: string; time: Date } | null {
  let signatures: ReturnType<typeof parseNote>["signatures"];
  let text: string;
  try {
    ({ text, signatures } = parseNote(head.note + answer));
  } catch {
    return null;
  }
  const textBytes = new TextEncoder().encode(text);
  for (const sig of signatures) {
    const time = cosignatureTime(sig.signature);
    if (
      sig.name === witness.name &&
      sig.keyId === witness.keyId &&
      time !== null &&
      time <= BigInt(Number.MAX_SAFE_INTEGER) / 1000n &&
      witness.verify(textBytes, sig.signature)
    ) {
      const bytes = new Uint8Array(4 + sig.signature.length);
      new DataView(bytes.buffer).setUint32(0, sig.keyId, false);
      bytes.set(sig.signature, 4);
      return {
        line: `\u2014 ${sig.name} ${encodeBase64(bytes)}\n`,
        time: new Date(Number(time) * 1000),
      };
    }
  }
  return null;
}

/**
 * Submits `head` to one witness: `old` from the stored cosignatures, one resend on a 409 with the
 * size the witness reports (given up when that size is above the head's), and the valid
 * cosignature stored. Never throws for the witness's faults: they become outcomes, logged and
 * counted in `anchor_witness_submissions_total`.
 * @returns the outcome.
 * @throws the database's errors.
 * Source: C2SP tlog-witness "add-checkpoint"; docs/protocol.md §13.6 "Witnesses".
 */
export async function submitHead(
  deps: WitnessDeps,
  witness: Witness,
  head: Head,
): Promise<WitnessOutcome> {
  const outcome = await submit(deps, witness, head);
  deps.metrics.witnessSubmissions.inc({ outcome });
  return outcome;
}

async function submit(deps: WitnessDeps, witness: Witness, head: Head): Promise<WitnessOutcome> {
  const { db, logger } = deps;
  const who = { witness: witness.verifier.name, url: witness.url, size: head.treeSize };
  let old = await latestCosignedSize(db, witness.verifier.vkey);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (old > head.treeSize) {
      logger.error(
        { ...who, witnessSize: old },
        "the witness has cosigned a larger checkpoint-log size than the stored log (database restored?)",
      );
      return "conflict";
    }
    let response: Response;
    let answer: string;
    try {
      response = await fetch(`${witness.url}/add-checkpoint`, {
        method: "POST",
        body: await requestBody(db, old, head),
        signal: AbortSignal.timeout(deps.timeoutMs ?? WITNESS_TIMEOUT_MS),
      });
      answer = await response.text();
    } catch (error) {
      logger.warn({ ...who, err: error }, "witness unreachable");
      return "unavailable";
    }
    if (response.status === 409 && attempt === 0) {
      const reported = /^(0|[1-9][0-9]{0,15})\n$/.exec(answer);
      if (response.headers.get("content-type")?.startsWith("text/x.tlog.size") && reported) {
        logger.info({ ...who, old, witnessSize: Number(reported[1]) }, "witness resynchronised");
        old = Number(reported[1]);
        continue;
      }
    }
    if (response.status !== 200) {
      const level = response.status === 422 || response.status === 409 ? "error" : "warn";
      logger[level](
        { ...who, old, status: response.status, answer: answer.slice(0, 500) },
        "the witness refused the checkpoint-log head",
      );
      return response.status === 409 ? "conflict" : "rejected";
    }
    const cosignature = validCosignature(witness.verifier, head, answer);
    if (!cosignature) {
      logger.warn(
        { ...who, answer: answer.slice(0, 500) },
        "no valid cosignature in the witness's answer",
      );
      return "invalid";
    }
    await recordCheckpointLogCosignature(db, {
      treeSize: head.treeSize,
      witness: witness.verifier.vkey,
      line: cosignature.line,
      cosignedAt: cosignature.time,
    });
    return "cosigned";
  }
  return "conflict";
}

/** Runs witness rounds in the background, one at a time. */
export interface WitnessSubmitter {
  /**
   * Starts a round for the latest head unless one is running: every witness without a stored
   * cosignature of it is sent the head, concurrently. Returns at once.
   */
  kick(): void;
  /** Resolves when no round is running (for shutdown and tests). */
  idle(): Promise<void>;
}

/**
 * A background submitter of the latest checkpoint-log head to `witnesses`. After each round it
 * sets `anchor_checkpoint_log_cosignatures` and warns when the head has fewer than `policy`
 * cosignatures (WITNESS_POLICY). A round's database errors are logged, never thrown.
 */
export function createWitnessSubmitter(
  deps: WitnessDeps,
  witnesses: readonly Witness[],
  policy: number,
): WitnessSubmitter {
  let running: Promise<void> | null = null;
  async function round(): Promise<void> {
    const head = await latestCheckpointLogHead(deps.db);
    if (!head) {
      return;
    }
    await Promise.all(
      witnesses.map(async (witness) => {
        if ((await latestCosignedSize(deps.db, witness.verifier.vkey)) < head.treeSize) {
          await submitHead(deps, witness, head);
        }
      }),
    );
    const count = (await checkpointLogCosignatureLines(deps.db, head.treeSize)).length;
    deps.metrics.headCosignatures.set(count);
    if (count < policy) {
      deps.logger.warn(
        { size: head.treeSize, cosignatures: count, policy },
        "the latest checkpoint-log head has fewer witness cosignatures than WITNESS_POLICY",
      );
    }
  }
  return {
    kick() {
      if (running || witnesses.length === 0) {
        return;
      }
      running = round()
        .catch((error: unknown) => deps.logger.error({ err: error }, "witness round failed"))
        .finally(() => {
          running = null;
        });
    },
    idle: async () => {
      await running;
    },
  };
}
