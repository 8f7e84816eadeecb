/**
 * First run of `pnpm start`: writes a local `.env` with fresh random secrets and a local
 * authority keypair (Solana CLI JSON format), and says so (docs/protocol.md §10). The apps themselves
 * never invent a missing secret; only this launcher does, and only when `.env` is absent.
 * @module
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/** The program id of the embedded local chain (`@verifiable-memory/commitment-program` LOCAL_PROGRAM_ID). */
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

/** The variables of the environment the first run reads (all optional). */
export interface FirstRunEnv {
  /** Core API port (default 8787): the sign-in domain, URI and grant base URL follow it. */
  readonly PORT?: string | undefined;
  /** Extension API port (default 8788): its public URL follows it. */
  readonly EXTENSION_PORT?: string | undefined;
  /** Where generated state goes (default `./.data` beside the settings file). */
  readonly DATA_DIR?: string | undefined;
}

/**
 * Creates the settings file `envPath` (`<root>/.env` for `pnpm start`) with fresh secrets and
 * local defaults when it does not exist yet, and a local authority keypair at
 * `<DATA_DIR>/authority.json` when missing: every generated file lands under DATA_DIR (a relative
 * DATA_DIR is relative to the settings file's folder, as the launcher reads it). The sign-in domain
 * and URI, the grant base URL and the extension API's public URL follow `PORT` and
 * `EXTENSION_PORT`.
 * @returns the lines to tell the user (empty when nothing was written).
 */
export async function ensureLocalEnv(envPath: string, env: FirstRunEnv = {}): Promise<string[]> {
  if (existsSync(envPath)) {
    return [];
  }
  const said: string[] = [];
  const base = dirname(envPath);
  const dataDirSetting = env.DATA_DIR || "./.data";
  const dataDir = resolve(base, dataDirSetting);
  const keypairPath = join(dataDir, "authority.json");
  if (!existsSync(keypairPath)) {
    await writeSolanaKeypairFile(keypairPath);
    said.push(`wrote a local authority keypair to ${keypairPath}`);
  }
  const relativeKeypair = relative(base, keypairPath);
  const keypairSetting =
    relativeKeypair.startsWith("..") || isAbsolute(relativeKeypair)
      ? keypairPath
      : `./${relativeKeypair}`;
  const corePort = Number(env.PORT || 8787);
  const extensionPort = Number(env.EXTENSION_PORT || 8788);
  const lines = [
    "# Written by the first `pnpm start`: local development settings with fresh random secrets.",
    "# Never commit this file. See README.md (Configuration) for every variable.",
    `JWT_SECRET=${randomBytes(48).toString("base64url")}`,
    `MASTER_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`,
    "SERVICE_NAME=Verifiable Memory",
    `SIWS_DOMAIN=localhost:${corePort}`,
    `SIWS_URI=http://localhost:${corePort}`,
    "SIWS_CHAIN_ID=localnet",
    `PUBLIC_BASE_URL=http://localhost:${corePort}`,
    `EXTENSION_PUBLIC_URL=http://localhost:${extensionPort}`,
    `DATA_DIR=${dataDirSetting}`,
    `SERVICE_PROGRAM_ID=${LOCAL_PROGRAM_ID}`,
    `AUTHORITY_KEYPAIR_PATH=${keypairSetting}`,
    "# Local development: anchor quickly so `pnpm demo` sees proofs within seconds.",
    "# Production defaults are ANCHOR_INTERVAL_MS=30000 and SEAL_MAX_AGE_MS=300000.",
    "ANCHOR_INTERVAL_MS=2000",
    "SEAL_MAX_AGE_MS=5000",
    "",
  ];
  await mkdir(base, { recursive: true });
  await writeFile(envPath, lines.join("\n"), { mode: 0o600 });
  said.push(`wrote ${envPath} with fresh JWT_SECRET and MASTER_ENCRYPTION_KEY`);
  return said;
}
