/**
 * The `svc` program: commander's command tree over `@verifiable-memory/client`, with `--json` and `--help`
 * on every command and the exit codes of {@link EXIT}.
 * @module
 */
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { registerAuthCommands } from "./commands/auth.js";
import { registerKeygenCommand } from "./commands/keygen.js";
import { registerKeyCommands } from "./commands/keys.js";
import { registerMcpCommand } from "./commands/mcp.js";
import { registerMemoryCommands } from "./commands/memories.js";
import { registerShareCommand } from "./commands/share.js";
import { registerTransferCommands } from "./commands/transfer.js";
import { registerVerifyCommand } from "./commands/verify.js";
import { registerWatchCommand } from "./commands/watch.js";
import { EXIT, exitCodeOf } from "./errors.js";
import { Output, type Streams } from "./output.js";
import type { Runtime } from "./runtime.js";
import { DEFAULT_RPC_URL, DEFAULT_URL } from "./session.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The root help's epilogue: environment, files and exit codes. */
const EPILOGUE = `
Environment:
  SVC_URL          the API's base URL (default: the one stored by svc login, else ${DEFAULT_URL})
  SVC_API_KEY      an API key to use instead of the stored credential
  SVC_RPC_URL      the chain RPC for svc verify (default ${DEFAULT_RPC_URL})
  XDG_CONFIG_HOME  where credentials live: $XDG_CONFIG_HOME/svc/credentials.json (default ~/.config)

Exit status:
  0  success
  1  not verified, or not found (404)
  2  usage: bad arguments or options, an unreadable or malformed input file
  3  API or network error, or the chain could not be read (a verification result unknown)
  4  not logged in, or the credential was refused (401/403): run svc login

Every command takes --json: its result as JSON on stdout, errors as {"error": {...}} on stderr.`;

/** Whether `--json` appears among the options (before a `--` separator). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * Builds the command tree. Parse errors throw `CommanderError` (never exit the process); their
 * message is written to `rt.streams.stderr`, as JSON when `json`.
 */
export function buildProgram(rt: Runtime, json: boolean): Command {
  const program = new Command("svc");
  program
    .description(
      "The verifiable memory service from the command line: memories encrypted at rest, each user's log anchored on Solana, verifiable by anyone against the chain.",
    )
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .option(
      "--url <url>",
      `the core API's base URL (default: SVC_URL, svc login's, ${DEFAULT_URL})`,
    )
    .option("--json", "machine-readable output: JSON on stdout, errors as JSON on stderr")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => rt.streams.stdout.write(text),
      writeErr: (text) => rt.streams.stderr.write(text),
      outputError: (text, write) => {
        const message = text.replace(/^error:\s*/, "").trim();
        write(
          json ? `${JSON.stringify({ error: { code: "usage", message } })}\n` : `svc: ${message}\n`,
        );
      },
    })
    .addHelpText("after", EPILOGUE);
  if (!json) {
    program.showHelpAfterError("(run with --help for usage)");
  }

  registerKeygenCommand(program, rt);
  registerAuthCommands(program, rt);
  registerMemoryCommands(program, rt);
  registerVerifyCommand(program, rt);
  registerWatchCommand(program, rt);
  registerMcpCommand(program, rt);
  registerShareCommand(program, rt);
  registerKeyCommands(program, rt);
  registerTransferCommands(program, rt);
  return program;
}

/** What {@link run} takes besides the arguments (defaults: the process's). */
export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly streams?: Streams;
  readonly now?: () => Date;
}

/**
 * Runs `svc` with `argv` (without the node and script paths).
 * @returns the exit status (see {@link EXIT}): 0 ok, 1 not verified / not found, 2 usage, 3 API
 *   or network error, 4 credentials.
 */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  const rt: Runtime = {
    env: options.env ?? process.env,
    streams: options.streams ?? { stdout: process.stdout, stderr: process.stderr },
    now: options.now ?? (() => new Date()),
    exitCode: EXIT.ok,
  };
  const json = jsonRequested(argv);
  const program = buildProgram(rt, json);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return rt.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse error (already printed) is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    new Output(json, rt.streams).error(error);
    return exitCodeOf(error);
  }
}
