/**
 * What a command's action gets: the context (environment, clock), the streams, the exit code to
 * set for a negative result, and its options merged with the global ones.
 * @module
 */
import type { Command } from "commander";
import type { ExitCode } from "./errors.js";
import { Output, type Streams } from "./output.js";
import type { Context, GlobalOptions } from "./session.js";

/** The state of one `svc` run. */
export interface Runtime extends Context {
  readonly streams: Streams;
  /** The exit code of the run; commands set it for a negative result (e.g. `NOT VERIFIED`). */
  exitCode: ExitCode;
}

/**
 * The options of `command` merged with the program's global ones (`--url`, `--json`).
 * @typeParam T the command's own options.
 */
export function optionsOf<T extends object>(command: Command): T & GlobalOptions {
  return command.optsWithGlobals<T & GlobalOptions>();
}

/** The {@link Output} of a command run, honouring `--json`. */
export function outputOf(rt: Runtime, options: GlobalOptions): Output {
  return new Output(options.json === true, rt.streams);
}
