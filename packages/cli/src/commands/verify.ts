/**
 * `svc verify`: checks memories against the chain without trusting the API (docs/protocol.md
 * §6.7). `svc verify <id>` fetches the proof bundle and the memory through the API and checks
 * them with `@verifiable-memory/client/verify`; `svc verify --bundle <file>` checks the bundles of a file (an
 * `svc export`, or `svc prove` output) with `@verifiable-memory/verifier` and needs no API at all. Either way
 * the commitment account is read from the chain RPC you name.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { VerifyReason, VerifyResult } from "@verifiable-memory/verifier";
import type { Command } from "commander";
import { readCredentials } from "../credentials.js";
import { EXIT, usageError } from "../errors.js";
import type { Output } from "../output.js";
import { readText } from "../parse.js";
import { orderedPool } from "../pool.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { apiUrl, authedClient, rpcUrl } from "../session.js";

/** How many bundles of a file are checked at a time. */
const CONCURRENCY = 8;

interface VerifyCommandOptions {
  readonly bundle?: string;
  readonly rpc?: string;
  readonly authority?: string;
  readonly programId?: string;
  readonly pin?: boolean;
  readonly verbose?: boolean;
  readonly api?: string;
  readonly logKey?: string[];
}

/** One checked entry of a bundle file. */
export interface EntryResult {
  /** 1-based line (or array position) in the file. */
  readonly line: number;
  /** The memory the entry names (null when it could not be read). */
  readonly memoryId: string | null;
  readonly verified: boolean;
  /** Null exactly when verified. */
  readonly reason: VerifyReason | null;
  readonly message: string;
  /** Whether the memory's content was checked against the leaf as well. */
  readonly contentChecked: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One entry of a bundle file: its position and its parsed value, or why it did not parse. */
interface Entry {
  readonly line: number;
  readonly value?: unknown;
  readonly parseError?: string;
}

/**
 * The entries of a bundle file: one JSON document (a bundle, an export line, or an array of
 * them), or JSON Lines (one per non-blank line).
 * @throws CliError usage when the file holds no entry.
 */
export function entriesOf(text: string): Entry[] {
  const trimmed = text.trim();
  if (trimmed === "") {
    throw usageError("the bundle file is empty");
  }
  try {
    const whole = JSON.parse(trimmed) as unknown;
    if (Array.isArray(whole)) {
      if (whole.length === 0) {
        throw usageError("the bundle file holds an empty array");
      }
      return whole.map((value, i) => ({ line: i + 1, value }));
    }
    return [{ line: 1, value: whole }];
  } catch (error) {
    if (!(error instanceof SyntaxError)) {
      throw error;
    }
  }
  const entries: Entry[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") {
      return;
    }
    try {
      entries.push({ line: i + 1, value: JSON.parse(line) });
    } catch (error) {
      entries.push({ line: i + 1, parseError: (error as Error).message });
    }
  });
  return entries;
}

/**
 * The first field where an exported memory disagrees with what its leaf commits (`svc export`
 * lines carry both), or null. The content itself is checked by the verifier (content hash).
 */
function memoryMismatch(memory: Json, proof: Json): string | null {
  const leaf = isObject(proof.leafData) ? proof.leafData : {};
  const checks: [string, unknown, unknown][] = [
    ["id", memory.id, proof.memoryId],
    ["leafIndex", memory.leafIndex, proof.leafIndex],
    ["leafHash", memory.leafHash, proof.leafHash],
    ["createdAt", memory.createdAt, leaf.createdAt],
    ["metadata", memory.metadata, leaf.metadata],
  ];
  if (leaf.v === 2) {
    checks.push(
      ["namespace", memory.namespace ?? null, leaf.namespace],
      ["supersedes", memory.supersedes ?? null, leaf.supersedes],
      ["writtenBy", memory.writtenBy, leaf.writtenBy],
    );
  }
  for (const [field, ours, committed] of checks) {
    if (ours !== undefined && !isDeepStrictEqual(ours, committed)) {
      return field;
    }
  }
  return null;
}

/** What every check of a file shares: the RPC, what to pin, and the API that bridges old bundles. */
interface ChainOptions {
  readonly rpcUrl: string;
  readonly authority?: string;
  readonly programId?: string;
  /** The core API whose public consistency route bridges a bundle older than the chain's root. */
  readonly apiUrl?: string;
  /** Log verifier keys trusted for a bundle only the checkpoint log covers (else GET /info's). */
  readonly logKeys?: readonly string[];
}

/**
 * Verifies one entry: an `svc export` line `{ memory, proof }` (the bundle, with the memory's
 * content checked against the leaf and its other fields against the leaf data), or anything
 * `svc-verify` reads (a bundle, or a grant's memory with a nested `proof`).
 */
async function verifyEntry(entry: Entry, chain: ChainOptions): Promise<EntryResult> {
  const base = { line: entry.line };
  if (entry.parseError !== undefined) {
    return {
      ...base,
      memoryId: null,
      verified: false,
      reason: "malformed_bundle",
      message: `not JSON: ${entry.parseError}`,
      contentChecked: false,
    };
  }
  const value = entry.value;
  const exported = isObject(value) && isObject(value.memory) && isObject(value.proof);
  const bundle = exported ? (value.proof as Json) : value;
  const memory = exported ? (value.memory as Json) : null;
  const content = memory && typeof memory.content === "string" ? memory.content : undefined;
  const memoryId = isObject(bundle)
    ? typeof bundle.memoryId === "string"
      ? bundle.memoryId
      : isObject(bundle.proof) && typeof bundle.proof.memoryId === "string"
        ? bundle.proof.memoryId
        : null
    : null;
  let result: VerifyResult;
  try {
    // Loaded when used, not at start-up (docs/performance.md, pnpm bench startup).
    const { verifyBundle } = await import("@verifiable-memory/verifier");
    result = await verifyBundle(bundle, {
      rpcUrl: chain.rpcUrl,
      ...(chain.authority === undefined ? {} : { authority: chain.authority }),
      ...(chain.programId === undefined ? {} : { programId: chain.programId }),
      ...(chain.apiUrl === undefined ? {} : { apiUrl: chain.apiUrl }),
      ...(chain.logKeys === undefined ? {} : { logKeys: chain.logKeys }),
      ...(content === undefined ? {} : { content }),
    });
  } catch (error) {
    return {
      ...base,
      memoryId,
      verified: false,
      reason: "malformed_bundle",
      message: (error as Error).message,
      contentChecked: false,
    };
  }
  if (result.verified && memory && isObject(bundle)) {
    const field = memoryMismatch(memory, bundle);
    if (field !== null) {
      return {
        ...base,
        memoryId,
        verified: false,
        reason: "leaf_mismatch",
        message: `the memory's ${field} differs from what its leaf commits`,
        contentChecked: result.contentChecked,
      };
    }
  }
  return {
    ...base,
    memoryId,
    verified: result.verified,
    reason: result.reason,
    message: result.message,
    contentChecked: result.contentChecked,
  };
}

/** `VERIFIED` or `NOT VERIFIED: <reason>`. */
function verdict(verified: boolean, reason: string | null | undefined): string {
  return verified ? "VERIFIED" : `NOT VERIFIED: ${reason}`;
}

/**
 * Verifies every entry of a bundle file; sets the run's exit code. Prints the entries that
 * fail (every entry when `verbose`) and a summary.
 */
async function verifyFile(
  rt: Runtime,
  out: Output,
  file: string,
  chain: ChainOptions,
  verbose: boolean,
): Promise<void> {
  const entries = entriesOf(await readText(file, "the bundle file"));
  const results: EntryResult[] = [];
  const bar = entries.length > 1 ? out.progress(entries.length, "verifying") : null;
  try {
    await orderedPool(
      entries,
      CONCURRENCY,
      (entry) => verifyEntry(entry, chain),
      (result) => {
        results.push(result);
        bar?.increment();
      },
    );
  } finally {
    bar?.stop();
  }
  const passed = results.filter((r) => r.verified).length;
  // Unknown, not negative: the chain could not be read, or an old bundle's bridge (the API's
  // consistency proof) could not be fetched. Each is named with what was not reachable.
  const chainUnknown = results.filter((r) => r.reason === "chain_unavailable").length;
  const apiUnknown = results.filter((r) => r.reason === "consistency_unavailable").length;
  const unknown = chainUnknown + apiUnknown;
  const failed = results.length - passed - unknown;
  rt.exitCode = failed > 0 ? EXIT.negative : unknown > 0 ? EXIT.api : EXIT.ok;
  const unreachable = [
    ...(chainUnknown > 0
      ? [`${chainUnknown} unknown: the chain could not be read at ${chain.rpcUrl}`]
      : []),
    ...(apiUnknown > 0
      ? [
          `${apiUnknown} unknown: anchored before the chain's current root, they need the API's consistency proof, which could not be fetched from ${
            chain.apiUrl ?? "(no API URL: pass --api)"
          } (start the API or pass --api <url>; or export again)`,
        ]
      : []),
  ];
  await out.result(
    {
      verified: failed === 0 && unknown === 0,
      total: results.length,
      passed,
      failed,
      unknown,
      unreachable: {
        chain: chainUnknown > 0 ? chain.rpcUrl : null,
        api: apiUnknown > 0 ? (chain.apiUrl ?? null) : null,
      },
      rpcUrl: chain.rpcUrl,
      apiUrl: chain.apiUrl ?? null,
      results,
    },
    () => [
      ...results
        .filter((r) => verbose || !r.verified || results.length === 1)
        .map(
          (r) =>
            `line ${r.line}  ${r.memoryId ?? "?"}  ${verdict(r.verified, r.reason)}${
              r.verified ? (r.contentChecked ? " (content checked)" : "") : `  ${r.message}`
            }`,
        ),
      `${passed} of ${results.length} verified against ${chain.rpcUrl}${
        failed > 0 ? `; ${failed} NOT verified` : ""
      }`,
      ...unreachable,
    ],
  );
}

/** Registers `verify` on `program`. */
export function registerVerifyCommand(program: Command, rt: Runtime): void {
  program
    .command("verify")
    .description(
      "Check a memory against the chain without trusting the API; --bundle checks a file offline (no API needed)",
    )
    .argument("[id]", "the memory to verify (through the API)")
    .option(
      "-b, --bundle <file>",
      "verify every bundle of this file instead: an `svc export` (JSON Lines) or `svc prove` output ('-': stdin)",
    )
    .option(
      "--rpc <url>",
      "Solana JSON-RPC to read the commitment from (default: SVC_RPC_URL, `svc login --rpc`, or http://127.0.0.1:8899)",
    )
    .option("--authority <base58>", "expected anchoring authority of the commitment account")
    .option("--program-id <base58>", "expected commitment program id")
    .option(
      "--log-key <vkey...>",
      "log verifier keys to trust for a memory only the checkpoint log covers (docs/protocol.md §13.1; default: GET /info's logKeys)",
    )
    .option("-v, --verbose", "with --bundle: print every entry, not only those that fail")
    .option(
      "--api <url>",
      "with --bundle: the core API whose public consistency route (no credential) bridges a bundle anchored before the chain's current root (default: --url, SVC_URL or svc login's)",
    )
    .option(
      "--no-pin",
      "with <id>: do not pin the authority and program the API publishes (GET /info)",
    )
    .addHelpText(
      "after",
      "\nExit status: 0 verified; 1 not verified (or not anchored yet); 3 the chain or the API could not be read (unknown).",
    )
    .action(async (id: string | undefined, _options: object, command: Command) => {
      const options = optionsOf<VerifyCommandOptions>(command);
      const out = outputOf(rt, options);
      if ((id === undefined) === (options.bundle === undefined)) {
        throw usageError("give a memory id or --bundle <file>");
      }
      const rpc = await rpcUrl(rt, options.rpc);
      if (options.bundle !== undefined) {
        await verifyFile(
          rt,
          out,
          options.bundle,
          {
            rpcUrl: rpc,
            ...(options.authority === undefined ? {} : { authority: options.authority }),
            ...(options.programId === undefined ? {} : { programId: options.programId }),
            apiUrl: options.api ?? apiUrl(rt, options, await readCredentials(rt.env)),
            ...(options.logKey === undefined ? {} : { logKeys: options.logKey }),
          },
          options.verbose === true,
        );
        return;
      }
      const client = await authedClient(rt, options);
      let authority = options.authority;
      let programId = options.programId;
      if (options.pin !== false && (authority === undefined || programId === undefined)) {
        const info = await client.info();
        authority ??= info.anchorAuthority ?? undefined;
        programId ??= info.programId;
      }
      const { verify } = await import("@verifiable-memory/client/verify");
      const outcome = await verify(client, id as string, {
        rpcUrl: rpc,
        ...(authority === undefined ? {} : { authority }),
        ...(programId === undefined ? {} : { programId }),
        ...(options.logKey === undefined ? {} : { logKeys: options.logKey }),
      });
      rt.exitCode = outcome.ok
        ? EXIT.ok
        : outcome.reason === "chain_unavailable" || outcome.reason === "consistency_unavailable"
          ? EXIT.api
          : EXIT.negative;
      await out.result(
        {
          id,
          verified: outcome.ok,
          reason: outcome.reason ?? null,
          message: outcome.message,
          contentChecked: outcome.contentChecked,
          onChain: outcome.onChain,
          rpcUrl: rpc,
          pinned: { authority: authority ?? null, programId: programId ?? null },
        },
        () => [
          verdict(outcome.ok, outcome.reason),
          `  ${outcome.message}${outcome.contentChecked ? " (content checked)" : ""}`,
        ],
      );
    });
}
