/**
 * Shared helpers for `pnpm bench`: timing with process.hrtime, median/percentiles, one table
 * format so every figure is printed beside the baseline measured in the same run, and process
 * memory read from /proc.
 * @module
 */
import { readFile } from "node:fs/promises";

/** Runs `fn` `reps` times after `warmup` untimed runs; returns each run's duration in ms. */
export async function timeRuns(
  fn: () => unknown | Promise<unknown>,
  reps: number,
  warmup = 1,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) {
    await fn();
  }
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

/**
 * A full garbage collection when the process runs with `--expose-gc` (`pnpm bench` does), else
 * nothing: called before a timed run that follows other work in the same process, so that it does
 * not pay for collecting the garbage that work left.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The p-th percentile (0..100) of `values` (nearest rank). Throws RangeError on an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    throw new RangeError("percentile of an empty list");
  }
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median of `values`. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** One printed figure: what we measured beside its raw baseline from the same run. */
export interface Figure {
  /** What was measured, e.g. "merkle append, 1e6 leaves". */
  name: string;
  /** Our figure. */
  value: number;
  /** The raw baseline measured in the same run. */
  baseline: number;
  /** Unit of both numbers, e.g. "ops/s" or "ms". */
  unit: string;
  /** Name of the baseline, e.g. "node:crypto sha256". */
  baselineName: string;
  /** Optional target, printed for reference, e.g. "≥ 0.5×". */
  target?: string;
}

/** Prints figures as an aligned table with the ratio value/baseline. */
export function printFigures(section: string, figures: readonly Figure[]): void {
  console.log(`\n## ${section}`);
  const rows = figures.map((f) => [
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    `${f.baselineName}: ${fmt(f.baseline)} ${f.unit}`,
    `${(f.value / f.baseline).toFixed(2)}×`,
    f.target ?? "",
  ]);
  const header = ["figure", "ours", "baseline (same run)", "ratio", "target"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) {
    console.log(line(r));
  }
}

function fmt(n: number): string {
  if (n >= 100) {
    return Math.round(n).toLocaleString("en-US");
  }
  return n.toPrecision(3);
}

/**
 * The version-1 memory-body AAD of @verifiable-memory/envelope-crypto, built by hand from its README table for
 * the raw baselines: "svc/envelope/body" ‖ 0x00 ‖ version 0x01 ‖ for userId and memoryId each a
 * 4-byte big-endian length and the UTF-8 bytes.
 */
export function rawBodyAad(context: { userId: string; memoryId: string }): Buffer {
  const field = (s: string) => {
    const bytes = Buffer.from(s, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return [length, bytes];
  };
  return Buffer.concat([
    Buffer.from("svc/envelope/body\u0000\u0001", "latin1"),
    ...field(context.userId),
    ...field(context.memoryId),
  ]);
}

/**
 * A `Vm…` line of /proc/<pid>/status (`pid` "self": this process) in MiB (VmHWM: peak resident
 * set; VmRSS: current), or null where /proc cannot tell (not Linux, process gone).
 */
export async function procStatusMiB(
  pid: number | "self",
  field: "VmHWM" | "VmRSS",
): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
  return kib === undefined ? null : Number(kib) / 1024;
}
