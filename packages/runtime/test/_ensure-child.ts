/**
 * Child process of embedded.test.ts: another "app" calling ensureEmbeddedPostgres on the same
 * DATA_DIR. Prints `{ startedHere, port }` as JSON, stops its handle and exits. A second argument
 * changes the ending: a number is set as `process.exitCode` after the stop (as vitest reports
 * failed tests: no process.exit call); `abandon` calls `process.exit(5)` without stopping.
 * @module
 */
import { ensureEmbeddedPostgres } from "../src/embedded.js";

const dataDir = process.argv[2];
if (!dataDir) {
  throw new TypeError("usage: _ensure-child.ts <dataDir> [exitCode | abandon]");
}
const db = await ensureEmbeddedPostgres(dataDir);
process.stdout.write(`${JSON.stringify({ startedHere: db.startedHere, port: db.port })}\n`);
const ending = process.argv[3];
if (ending === "abandon") {
  process.exit(5);
}
await db.stop();
if (ending !== undefined) {
  process.exitCode = Number(ending);
}
