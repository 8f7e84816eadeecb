/**
 * `pnpm --filter @verifiable-memory/witness run keygen <name> <path>`: writes a new witness key
 * (one line `PRIVATE+KEY+<name>+<hex id>+<base64(0x04 ‖ seed)>`, mode 0600) to `path`, refusing
 * to replace a file, and prints its verifier key (docs/protocol.md §13.6 "Witnesses").
 * @module
 */
import { writeFileSync } from "node:fs";
import { generateCosigner } from "@verifiable-memory/signed-note";

const [name, path] = process.argv.slice(2);
if (!name || !path) {
  process.stderr.write("usage: keygen <witness name> <key file>\n");
  process.exit(2);
}
const cosigner = generateCosigner(name);
writeFileSync(path, `${cosigner.skey}\n`, { mode: 0o600, flag: "wx" });
process.stdout.write(`${cosigner.vkey}\n`);
