/**
 * `svc-verify`: the auditor's command line over {@link verifyBundle} (docs/protocol.md §6.7
 * "Permissionless verification (`svc-verify`)"), through the owner's commitment account or the
 * checkpoint log (`--log-key` pins the log keys, docs/protocol.md §13.1 "The log key"). With `--api <url>`, an old bundle (cut before the
 * service anchored again) is bridged to the on-chain root by the public consistency proof of `GET
 * <url>/owners/{owner}/consistency`, which is verified, not trusted (docs/protocol.md §6.3). Prints
 * `VERIFIED` or `NOT VERIFIED: <reason>` (then one explanatory line); exit status 0 verified, 1 not
 * verified, 2 usage error (bad flags, unreadable or non-JSON input).
 * @module
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { logKeysFromInfo, parseLogKeys } from "./log-keys.js";
import { verifyBundle } from "./verify.js";
import { checkWitnessPolicy, parseWitnessKeys } from "./witness-policy.js";

/** Usage text printed on a usage error and for `--help`. */
export const USAGE = `usage: svc-verify --rpc <url> [--program-id <base58>] [--content <file>]
                  [--authority <base58>] [--log-key <vkey>]... [--api <url>] [--json]
                  [--witness-key <vkey>]... [--witness-policy <k>] [<bundle.json> | -]

Verifies a memory's proof bundle (GET /memories/:id/proof, or a capability grant's memory with a
nested "proof") against the chain RPC <url>: through the owner's commitment account, or, for a
memory only the checkpoint log covers, through the signed user checkpoint, its entry in the
checkpoint log and the checkpoint log account. Reads the bundle from the file, or from standard
input when the file is "-" or omitted.
  --rpc         Solana JSON-RPC endpoint you trust (required)
  --program-id  commitment program id (default: the bundle's anchor.programId)
  --content     file holding the memory's plaintext (UTF-8), checked against the leaf
  --authority   expected authority of the commitment account (and of the checkpoint log account)
  --log-key     a trusted log verifier key <LOG_ORIGIN>+<key id>+<base64 key> for signed user
                checkpoints; repeat it to pin several (key rotation). Without it, the logKeys of
                GET <api>/info are used when --api is given (a convenience: it trusts the API)
  --api         the memory API's base URL: an old bundle (the chain has anchored more since) is
                bridged by the public consistency proof GET <url>/owners/{owner}/consistency
                (GET <url>/tlog/consistency for the checkpoint log), checked against the
                bundle's root and the on-chain root (no credential needed; without --api such a
                bundle is NOT VERIFIED: stale_checkpoint)
  --witness-key a trusted witness verifier key <name>+<key id>+<base64 0x04 key>; repeat it
  --witness-policy
                k: also fetch GET <api>/tlog/checkpoint (needs --api) and require the log's
                signature and at least k valid cosignatures by the --witness-key witnesses
                (NOT VERIFIED: witness_policy_unmet otherwise)
  --json        print the full result as JSON
Exit status: 0 VERIFIED, 1 NOT VERIFIED, 2 usage error.`;

/** The process surface the CLI uses (injectable for tests). */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Reads all of standard input. */
  readonly readStdin: () => Promise<string>;
  /** Reads a UTF-8 file. */
  readonly readFile: (path: string) => Promise<string>;
}

/** The real process streams and file system. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString("utf8");
  },
  readFile: (path) => readFile(path, "utf8"),
};

function usageError(io: CliIo, message: string): number {
  io.stderr(`svc-verify: ${message}\n${USAGE}\n`);
  return 2;
}

/**
 * Runs the CLI with `argv` (without the node and script paths).
 * @returns the exit status: 0 verified, 1 not verified, 2 usage error.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return usageError(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (!values.rpc) {
    return usageError(io, "--rpc <url> is required");
  }
  if (positionals.length > 1) {
    return usageError(io, "give at most one bundle file");
  }
  if (values.api !== undefined && !isHttpUrl(values.api)) {
    return usageError(
      io,
      `--api must be an absolute http(s) URL, got ${JSON.stringify(values.api)}`,
    );
  }
  const logKeys = values["log-key"];
  if (logKeys !== undefined) {
    try {
      parseLogKeys(logKeys);
    } catch (error) {
      return usageError(io, `--log-key: ${(error as Error).message}`);
    }
  }
  const witnessKeys = values["witness-key"] ?? [];
  const policyText = values["witness-policy"];
  if (policyText !== undefined) {
    const k = Number(policyText);
    if (!/^\d+$/.test(policyText) || k > witnessKeys.length) {
      return usageError(io, `--witness-policy must be a whole number 0..${witnessKeys.length}`);
    }
    if (values.api === undefined) {
      return usageError(io, "--witness-policy needs --api <url>");
    }
    try {
      parseWitnessKeys(witnessKeys);
    } catch (error) {
      return usageError(io, `--witness-key: ${(error as Error).message}`);
    }
  }
  const source = positionals[0] ?? "-";
  let input: unknown;
  let content: string | undefined;
  try {
    const text = source === "-" ? await io.readStdin() : await io.readFile(source);
    input = JSON.parse(text);
    if (values.content !== undefined) {
      content = await io.readFile(values.content);
    }
  } catch (error) {
    return usageError(io, `cannot read input: ${(error as Error).message}`);
  }
  const result = await verifyBundle(input, {
    rpcUrl: values.rpc,
    ...(values["program-id"] !== undefined ? { programId: values["program-id"] } : {}),
    ...(values.authority !== undefined ? { authority: values.authority } : {}),
    ...(values.api !== undefined ? { apiUrl: values.api } : {}),
    ...(logKeys !== undefined ? { logKeys } : {}),
    ...(content !== undefined ? { content } : {}),
  });
  const witnessPolicy =
    policyText === undefined || values.api === undefined
      ? undefined
      : await witnessCheck(values.api, logKeys, witnessKeys, Number(policyText));
  const verified = result.verified && (witnessPolicy?.ok ?? true);
  if (values.json) {
    const shown = witnessPolicy === undefined ? result : { ...result, verified, witnessPolicy };
    io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
  } else {
    io.stdout(result.verified ? "VERIFIED\n" : `NOT VERIFIED: ${result.reason}\n`);
    io.stdout(`  ${result.message}${result.contentChecked ? " (content checked)" : ""}\n`);
    if (witnessPolicy?.ok === false) {
      io.stdout(`NOT VERIFIED: ${witnessPolicy.reason}\n  ${witnessPolicy.message}\n`);
    } else if (witnessPolicy) {
      io.stdout(
        `  checkpoint log size ${witnessPolicy.size} cosigned by ${witnessPolicy.witnesses.join(", ") || "no witness"}\n`,
      );
    }
  }
  return verified ? 0 : 1;
}

/** The witness policy on GET <api>/tlog/checkpoint, with the pinned log keys or /info's. */
async function witnessCheck(
  api: string,
  logKeys: readonly string[] | undefined,
  witnessKeys: readonly string[],
  k: number,
): ReturnType<typeof checkWitnessPolicy> {
  try {
    return await checkWitnessPolicy(api, logKeys ?? (await logKeysFromInfo(api)), witnessKeys, k);
  } catch (error) {
    return { ok: false, reason: "unreachable", message: (error as Error).message };
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      rpc: { type: "string" },
      "program-id": { type: "string" },
      content: { type: "string" },
      authority: { type: "string" },
      api: { type: "string" },
      "log-key": { type: "string", multiple: true },
      "witness-key": { type: "string", multiple: true },
      "witness-policy": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
