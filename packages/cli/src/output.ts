/**
 * Output: results on standard output (text, or one JSON document with `--json`), notes and
 * errors on standard error (errors as `{ "error": … }` with `--json`), and a progress bar on
 * standard error when it is a terminal.
 * @module
 */
import { once } from "node:events";
import { createRequire } from "node:module";
import type { Writable } from "node:stream";
import type CliProgress from "cli-progress";
import { errorLine, reportOf } from "./errors.js";

/** The streams the CLI writes to (the process's own, or a test's). */
export interface Streams {
  readonly stdout: Writable & { readonly isTTY?: boolean };
  readonly stderr: Writable & { readonly isTTY?: boolean };
}

/**
 * Writes `text` to `stream`, waiting for it to drain when its buffer is full (so a large export
 * piped into a slow reader does not pile up in memory).
 */
export async function writeTo(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) {
    await once(stream, "drain");
  }
}

/** A progress bar, or a no-op when there is no terminal to draw on. */
export interface Progress {
  /** Adds `n` (default 1) to the count done. */
  increment(n?: number): void;
  /** Removes the bar. */
  stop(): void;
}

/** The output of one command run. */
export class Output {
  /** Whether `--json` was given: results as JSON on stdout, errors as JSON on stderr. */
  readonly json: boolean;
  private readonly streams: Streams;

  /** @param json whether `--json` was given. */
  constructor(json: boolean, streams: Streams) {
    this.json = json;
    this.streams = streams;
  }

  /** The standard output stream (for commands that stream their result, like `export`). */
  get stdout(): Writable {
    return this.streams.stdout;
  }

  /**
   * Prints a command's result: `value` as one line of JSON with `--json`, else the lines `human`
   * returns.
   */
  async result(value: unknown, human: () => string | readonly string[]): Promise<void> {
    if (this.json) {
      await writeTo(this.streams.stdout, `${JSON.stringify(value)}\n`);
      return;
    }
    const lines = human();
    const text = typeof lines === "string" ? lines : lines.join("\n");
    if (text !== "") {
      await writeTo(this.streams.stdout, `${text}\n`);
    }
  }

  /** A note for a person on standard error (a hint, a warning); nothing with `--json`. */
  note(text: string): void {
    if (!this.json) {
      this.streams.stderr.write(`${text}\n`);
    }
  }

  /** Prints an error: one line, or `{ "error": { code, message, status?, requestId?, details? } }`. */
  error(error: unknown): void {
    if (this.json) {
      this.streams.stderr.write(`${JSON.stringify({ error: reportOf(error) })}\n`);
    } else {
      this.streams.stderr.write(`${errorLine(error)}\n`);
    }
  }

  /**
   * A progress bar of `total` steps on standard error, drawn only when standard error is a
   * terminal and `--json` is not given; otherwise a no-op.
   */
  progress(total: number, label: string): Progress {
    if (this.json || !this.streams.stderr.isTTY || total <= 0) {
      return { increment: () => {}, stop: () => {} };
    }
    // Required here, only when a bar is drawn: not at svc's start-up (pnpm bench startup).
    const cliProgress = createRequire(import.meta.url)("cli-progress") as typeof CliProgress;
    const bar = new cliProgress.SingleBar(
      {
        stream: this.streams.stderr,
        format: `${label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return {
      increment: (n = 1) => bar.increment(n),
      stop: () => bar.stop(),
    };
  }
}
