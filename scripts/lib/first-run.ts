/**
 * First run of `pnpm start`: writes a local `.env` with fresh random secrets and a local
 * authority keypair (Solana CLI JSON format), and says so (CONTRACT §9). The apps themselves
 * never invent a missing secret; only this launcher does, and only when `.env` is absent.
 * @module
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/** The program id of the embedded local chain (`@svc/commitment-program` LOCAL_PROGRAM_ID). */
const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

/**
 * Writes a Solana CLI keypair file: a JSON array of 64 numbers, the 32-byte ed25519 seed followed
 * by the 32-byte public key. The file is created with mode 0600.
 * @throws Error when the file cannot be written.
 */
export async function writeSolanaKeypairFile(path: string): Promise<void> {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  if (!jwk.d || !jwk.x) {
    throw new Error("ed25519 key export lacks d or x");
  }
  const bytes = [...Buffer.from(jwk.d, "base64url"), ...Buffer.from(jwk.x, "base64url")];
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(bytes)}\n`, { mode: 0o600 });
}

/**
 * Creates the settings file `envPath` (`<root>/.env` for `pnpm start`) with fresh secrets and
 * local defaults when it does not exist yet, and a local authority keypair at
 * `<directory of envPath>/.data/authority.json` when missing. The relative paths written into the
 * file (DATA_DIR, AUTHORITY_KEYPAIR_PATH) are relative to the file's directory.
 * @returns the lines to tell the user (empty when nothing was written).
 */
export async function ensureLocalEnv(envPath: string): Promise<string[]> {
  if (existsSync(envPath)) {
    return [];
  }
  const said: string[] = [];
  const keypairPath = resolve(dirname(envPath), ".data", "authority.json");
  if (!existsSync(keypairPath)) {
    await writeSolanaKeypairFile(keypairPath);
    said.push(`wrote a local authority keypair to ${keypairPath}`);
  }
  const lines = [
    "# Written by the first `pnpm start`: local development settings with fresh random secrets.",
    "# Never commit this file. See README.md (Configuration) for every variable.",
    `JWT_SECRET=${randomBytes(48).toString("base64url")}`,
    `MASTER_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`,
    "SERVICE_NAME=Verifiable Memory",
    "SIWS_DOMAIN=localhost:8787",
    "SIWS_URI=http://localhost:8787",
    "SIWS_CHAIN_ID=localnet",
    "PUBLIC_BASE_URL=http://localhost:8787",
    "DATA_DIR=./.data",
    `SERVICE_PROGRAM_ID=${LOCAL_PROGRAM_ID}`,
    "AUTHORITY_KEYPAIR_PATH=./.data/authority.json",
    "# Local development: anchor quickly so `pnpm demo` sees proofs within seconds.",
    "# Production defaults are ANCHOR_INTERVAL_MS=30000 and SEAL_MAX_AGE_MS=300000.",
    "ANCHOR_INTERVAL_MS=2000",
    "SEAL_MAX_AGE_MS=5000",
    "",
  ];
  await writeFile(envPath, lines.join("\n"), { mode: 0o600 });
  said.push(`wrote ${envPath} with fresh JWT_SECRET and MASTER_ENCRYPTION_KEY`);
  return said;
}
