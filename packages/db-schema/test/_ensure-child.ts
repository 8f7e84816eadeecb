/**
 * Child process of embedded.test.ts: another "app" calling ensureEmbeddedPostgres on the same
 * DATA_DIR. Prints `{ startedHere, port }` as JSON and exits.
 * @module
 */
import { ensureEmbeddedPostgres } from "../src/embedded.js";

const dataDir = process.argv[2];
if (!dataDir) {
  throw new TypeError("usage: _ensure-child.ts <dataDir>");
}
const db = await ensureEmbeddedPostgres(dataDir);
process.stdout.write(`${JSON.stringify({ startedHere: db.startedHere, port: db.port })}\n`);
await db.stop();
