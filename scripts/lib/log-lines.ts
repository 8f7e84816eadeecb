/**
 * How `pnpm start` shows its apps' log lines: a person at a terminal gets them pretty-printed
 * (pino-pretty: time, level, message, fields); anything else (a pipe, a file, a log collector)
 * gets the apps' JSON lines unchanged.
 * @module
 */
import { prettyFactory } from "pino-pretty";

const pretty = prettyFactory({
  colorize: true,
  translateTime: "HH:MM:ss.l",
  ignore: "pid,hostname,name,service",
  singleLine: true,
});

/**
 * A formatter of log lines for `output`: pino-pretty when it is a TTY, the identity otherwise.
 * A line that is not a pino JSON record is shown as it is.
 */
export function logLineFormatter(output: { isTTY?: boolean }): (line: string) => string {
  if (!output.isTTY) {
    return (line) => line;
  }
  return prettyLine;
}

/** One pino JSON line pretty-printed (without its trailing newline), or `line` unchanged. */
export function prettyLine(line: string): string {
  if (!line.startsWith("{")) {
    return line;
  }
  try {
    const record = JSON.parse(line) as unknown;
    if (record !== null && typeof record === "object" && "level" in record) {
      return pretty(record).trimEnd();
    }
  } catch {
    // Not JSON after all: shown as it is.
  }
  return line;
}
