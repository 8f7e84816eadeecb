/**
 * First run of `pnpm start`: writes a local `.env` with fresh random secrets and a local
 * authority keypair (Solana CLI JSON format), and says so (docs/protocol.md §10). The apps themselves
 * never invent a missing secret; only this launcher does, and only when `.env` is absent.
 * @module
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parseEnv } from "node:util";
import { generateSigner } from "@verifiable-memory/signed-note";

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

/**
 * Writes a new log signing key (docs/protocol.md §13.1 "The log key") named `origin` to `path`:
 * one line, the signer key `PRIVATE+KEY+<origin>+<hex key id>+<base64(0x01 ‖ seed)>`, mode 0600.
 * @returns the verifier key of the new key.
 * @throws Error when the file cannot be written; NoteError when `origin` is not a valid key name.
 */
export async function writeLogSigningKey(path: string, origin: string): Promise<string> {
  const signer = generateSigner(origin);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${signer.skey}\n`, { mode: 0o600, flag: "wx" });
  return signer.vkey;
}

/** `<host[:port] of publicBaseUrl>/tlog`: the first-run default of LOG_ORIGIN. */
export function defaultLogOrigin(publicBaseUrl: string): string {
  return `${new URL(publicBaseUrl).host}/tlog`;
}

/** A path under `base` as the settings file writes it: `./relative` inside `base`, else absolute. */
function settingPath(base: string, path: string): string {
  const relativePath = relative(base, path);
  return relativePath.startsWith("..") || isAbsolute(relativePath) ? path : `./${relativePath}`;
}

/**
 * Gives a settings file that has no LOG_SIGNING_KEY_PATH a log key (the first `pnpm start` after
 * an upgrade, as for a new file): pins LOG_ORIGIN (kept when set, else
 * `<host[:port] of PUBLIC_BASE_URL>/tlog`) and LOG_SIGNING_KEY_PATH (`<DATA_DIR>/log-signing.key`)
 * at the end of the file and writes the key there. Does nothing when the file sets
 * LOG_SIGNING_KEY_PATH: a missing key file is then the apps' error to report, never replaced
 * silently by a new key (that would be a rotation, docs/protocol.md §13.1 "The log key").
 * Variables of `env` (the process environment) override the file's, as the launcher reads them.
 * @returns the lines to tell the user (empty when nothing was written).
 * @throws Error when the file lacks PUBLIC_BASE_URL and LOG_ORIGIN, or a key file is already at the
 *   default path (it is never overwritten).
 */
export async function ensureLogKey(
  envPath: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<string[]> {
  const text = await readFile(envPath, "utf8");
  const settings = { ...parseEnv(text), ...env } as Record<string, string | undefined>;
  if (settings.LOG_SIGNING_KEY_PATH) {
    return [];
  }
  const base = dirname(envPath);
  const keyPath = join(resolve(base, settings.DATA_DIR || "./.data"), "log-signing.key");
  const publicBaseUrl = settings.PUBLIC_BASE_URL;
  if (!settings.LOG_ORIGIN && !publicBaseUrl) {
    throw new Error(`${envPath}: set LOG_ORIGIN (or PUBLIC_BASE_URL) before the log key is made`);
  }
  const origin = settings.LOG_ORIGIN || defaultLogOrigin(publicBaseUrl as string);
  const vkey = await writeLogSigningKey(keyPath, origin);
  const lines = [
    "# The log key signs checkpoints (docs/protocol.md §13.1): keep it secret, never change LOG_ORIGIN.",
    ...(settings.LOG_ORIGIN ? [] : [`LOG_ORIGIN=${origin}`]),
    `LOG_SIGNING_KEY_PATH=${settingPath(base, keyPath)}`,
    "",
  ];
  await appendFile(envPath, `${text.endsWith("\n") || text === "" ? "" : "\n"}${lines.join("\n")}`);
  return [`wrote a log signing key to ${keyPath} (verifier key ${vkey})`];
}

/** The port `env[name]` gives (an integer 1–65535), or `fallback` when it is unset or empty. */
function port(env: FirstRunEnv, name: keyof FirstRunEnv, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") {
    return fallback;
  }
  if (!/^[1-9][0-9]{0,4}$/.test(value) || Number(value) > 65_535) {
    throw new Error(`${name} must be a port number from 1 to 65535, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The variables of the environment the first run reads (all optional). */
export interface FirstRunEnv {
  /** Core API port (default 8787): the sign-in domain, URI and grant base URL follow it. */
  readonly PORT?: string | undefined;
  /** Extension API port (default 8788): its public URL follows it. */
  readonly EXTENSION_PORT?: string | undefined;
  /** The anchor service's health port (default 8789). */
  readonly ANCHOR_PORT?: string | undefined;
  /** The local chain's JSON-RPC port (default 8899), used when `CHAIN_RPC_URL` is unset. */
  readonly LOCAL_CHAIN_PORT?: string | undefined;
  /** Where generated state goes (default `./.data` beside the settings file). */
  readonly DATA_DIR?: string | undefined;
}

/**
 * Creates the settings file `envPath` (`<root>/.env` for `pnpm start`) with fresh secrets and
 * local defaults when it does not exist yet, and a local authority keypair at
 * `<DATA_DIR>/authority.json` when missing: every generated file lands under DATA_DIR (a relative
 * DATA_DIR is relative to the settings file's folder, as the launcher reads it). The sign-in domain
 * and URI, the grant base URL and the extension API's public URL follow `PORT` and
 * `EXTENSION_PORT`; the four ports it was started with (`PORT`, `EXTENSION_PORT`, `ANCHOR_PORT`,
 * `LOCAL_CHAIN_PORT`, each its default when unset) are written too, so `pnpm demo`, `pnpm svc` and
 * the next `pnpm start`, which read `.env`, use the same ones.
 * @returns the lines to tell the user (empty when nothing was written).
 * @throws Error naming the setting when a port is not an integer from 1 to 65535.
 */
export async function ensureLocalEnv(envPath: string, env: FirstRunEnv = {}): Promise<string[]> {
  if (existsSync(envPath)) {
    return [];
  }
  const said: string[] = [];
  const corePort = port(env, "PORT", 8787);
  const extensionPort = port(env, "EXTENSION_PORT", 8788);
  const anchorPort = port(env, "ANCHOR_PORT", 8789);
  const chainPort = port(env, "LOCAL_CHAIN_PORT", 8899);
  const base = dirname(envPath);
  const dataDirSetting = env.DATA_DIR || "./.data";
  const dataDir = resolve(base, dataDirSetting);
  const keypairPath = join(dataDir, "authority.json");
  if (!existsSync(keypairPath)) {
    await writeSolanaKeypairFile(keypairPath);
    said.push(`wrote a local authority keypair to ${keypairPath}`);
  }
  const keypairSetting = settingPath(base, keypairPath);
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
    "# The ports this first run was started with: pnpm demo, pnpm svc and pnpm start read them here.",
    `PORT=${corePort}`,
    `EXTENSION_PORT=${extensionPort}`,
    `ANCHOR_PORT=${anchorPort}`,
    `LOCAL_CHAIN_PORT=${chainPort}`,
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

/**
 * Why the authority keypair setting cannot be used, or null when its file exists: a missing file
 * is named with the setting to fix and where it was read, rather than surfacing later as a bare
 * ENOENT from whichever process reads it first.
 * @param setting `AUTHORITY_KEYPAIR_PATH` as written (relative to the settings file's folder).
 * @param resolved the absolute path it resolves to.
 * @param envFile the settings file it came from (or the environment, when set there).
 */
export function authorityKeypairProblem(
  setting: string,
  resolved: string,
  envFile: string,
): string | null {
  if (existsSync(resolved)) {
    return null;
  }
  return (
    `AUTHORITY_KEYPAIR_PATH=${setting} (read from ${envFile} or the environment) names ${resolved}, ` +
    "which does not exist. Fix AUTHORITY_KEYPAIR_PATH there, or create a keypair at that path " +
    `with \`pnpm svc keygen --out ${resolved}\` (or \`solana-keygen new -o ${resolved}\`).`
  );
}
