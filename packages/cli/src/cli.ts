/**
 * The `svc` program: commander's command tree over `@verifiable-memory/client`, with `--json` and `--help`
 * on every command and the exit codes of {@link EXIT}. Command modules are loaded on demand: a run
 * naming a command loads only the module that defines it (`svc recall` never loads the keygen,
 * transfer or MCP code), so start-up stays short
 * (docs/performance.md "svc start-up (`pnpm bench startup`)").
 * @module
 */
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { EXIT, exitCodeOf } from "./errors.js";
import { Output, type Streams } from "./output.js";
import type { Runtime } from "./runtime.js";
import { DEFAULT_RPC_URL, DEFAULT_URL } from "./session.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** Registers some commands of `svc` on the program. */
type Registrar = (program: Command, rt: Runtime) => void;

/** The command modules in help order, each with the top-level commands it registers. */
export const COMMAND_MODULES: readonly {
  readonly names: readonly string[];
  readonly load: () => Promise<Registrar>;
}[] = [
  {
    names: ["keygen"],
    load: async () => (await import("./commands/keygen.js")).registerKeygenCommand,
  },
  {
    names: ["login", "logout", "whoami"],
    load: async () => (await import("./commands/auth.js")).registerAuthCommands,
  },
  {
    names: ["remember", "recall", "get", "update", "history", "forget", "prove", "log"],
    load: async () => (await import("./commands/memories.js")).registerMemoryCommands,
  },
  {
    names: ["verify"],
    load: async () => (await import("./commands/verify.js")).registerVerifyCommand,
  },
  {
    names: ["watch"],
    load: async () => (await import("./commands/watch.js")).registerWatchCommand,
  },
  { names: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcpCommand },
  {
    names: ["share"],
    load: async () => (await import("./commands/share.js")).registerShareCommand,
  },
  { names: ["keys"], load: async () => (await import("./commands/keys.js")).registerKeyCommands },
  {
    names: ["import", "export"],
    load: async () => (await import("./commands/transfer.js")).registerTransferCommands,
  },
];

/**
 * The command `argv` names: its first argument that is neither an option nor the value of
 * `--url` (the one global option taking a separate value), or the first after `--`.
 * @returns the word, or undefined when there is none (`svc`, `svc --help`, `svc --version`).
 */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      return argv[i + 1];
    }
    if (arg === "--url") {
      i++;
    } else if (!arg.startsWith("-")) {
      return arg;
    }
  }
  return undefined;
}

/**
 * The command modules a run with `argv` needs: none for `--version` alone, the one defining the
 * command `argv` names, or all of them (help, no command, an unknown one, or no `argv`).
 */
function modulesFor(
  argv: readonly string[] | undefined,
): readonly (typeof COMMAND_MODULES)[number][] {
  if (argv === undefined) {
    return COMMAND_MODULES;
  }
  const name = commandName(argv);
  if (name === undefined) {
    const help = argv.includes("-h") || argv.includes("--help");
    return !help && (argv.includes("-V") || argv.includes("--version")) ? [] : COMMAND_MODULES;
  }
  const named = COMMAND_MODULES.filter((module) => module.names.includes(name));
  return named.length > 0 ? named : COMMAND_MODULES;
}

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
 * Builds the command tree for `argv`: with the module of the command `argv` names
 * ({@link commandName}) only, no command for `--version` alone, and every command otherwise
 * (help, no command, an unknown one, which commander then refuses with the list, or no `argv`).
 * Parse errors throw `CommanderError` (never exit the process); their message is written to
 * `rt.streams.stderr`, as JSON when `json`.
 */
export async function buildProgram(
  rt: Runtime,
  json: boolean,
  argv?: readonly string[],
): Promise<Command> {
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

  for (const register of await Promise.all(modulesFor(argv).map((module) => module.load()))) {
    register(program, rt);
  }
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
  const program = await buildProgram(rt, json, argv);
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
