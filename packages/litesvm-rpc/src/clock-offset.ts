/**
 * The local chain's clock offset: seconds added to the wall clock in the Clock sysvar's
 * `unix_timestamp` (and in block times), moved forward only by the local-only `warpClock` RPC
 * method so stake maturity can be reached without waiting. Kept in `<chainDir>/clock.json` so a
 * restart never moves the chain's time backwards. Real clusters have no such thing.
 * Source: this project's design (packages/litesvm-rpc/README.md "Clock warp").
 * @module
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LedgerCorruptError, writeFileDurably } from "./ledger.js";

const FILE = "clock.json";

/**
 * The persisted offset in seconds (0 when never warped).
 * @throws LedgerCorruptError when `clock.json` exists but is not a clock record.
 */
export function loadClockOffset(chainDir: string): number {
  const path = join(chainDir, FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return 0;
    }
    throw error;
  }
  const parsed = JSON.parse(text) as { v?: unknown; offsetSeconds?: unknown };
  if (
    parsed.v !== 1 ||
    typeof parsed.offsetSeconds !== "number" ||
    !Number.isSafeInteger(parsed.offsetSeconds) ||
    parsed.offsetSeconds < 0
  ) {
    throw new LedgerCorruptError(`${path} is not a local-chain clock record`);
  }
  return parsed.offsetSeconds;
}

/** Durably records `offsetSeconds` (a non-negative safe integer) in `<chainDir>/clock.json`. */
export function saveClockOffset(chainDir: string, offsetSeconds: number): void {
  writeFileDurably(join(chainDir, FILE), `${JSON.stringify({ v: 1, offsetSeconds })}\n`);
}
