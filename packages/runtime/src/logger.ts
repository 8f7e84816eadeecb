/**
 * The apps' logger (docs/protocol.md §10 "Configuration", `LOG_LEVEL`): pino at the configured
 * level; readable lines (pino-pretty: time, level, message, fields) when the output is a
 * terminal, one JSON object per line otherwise (a pipe, a file, `pnpm start`, a log collector).
 * @module
 */
import { type DestinationStream, type Logger, pino } from "pino";
import pretty from "pino-pretty";
import { z } from "zod";

/** The levels `LOG_LEVEL` takes, most to least severe, then `silent`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A `LOG_LEVEL` value. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `LOG_LEVEL` in an app's settings schema: one of {@link LOG_LEVELS}, default `info`. */
export const LogLevelSchema = z.enum(LOG_LEVELS).default("info");

/** Where log lines go: a writable stream that may be a terminal. */
export interface LogOutput extends DestinationStream {
  readonly isTTY?: boolean;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** The app's name, in every line as `service`. */
  readonly service: string;
  /** Default `info`. */
  readonly level?: LogLevel;
  /** Default `process.stdout`. */
  readonly output?: LogOutput;
}

/**
 * A pino logger for an app: `{ service, pid }` in every line, the given level, pretty lines on a
 * terminal and JSON lines otherwise.
 */
export function createLogger(options: LoggerOptions): Logger {
  const output = options.output ?? process.stdout;
  const settings = {
    level: options.level ?? "info",
    base: { service: options.service, pid: process.pid },
  };
  if (!output.isTTY) {
    return pino(settings, output);
  }
  const readable = pretty({
    destination: output,
    colorize: true,
    translateTime: "HH:MM:ss.l",
    ignore: "pid,hostname,service",
    messageFormat: `${options.service}: {msg}`,
    sync: true,
  });
  return pino(settings, readable);
}
