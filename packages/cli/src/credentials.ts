/**
 * The credentials file: `$XDG_CONFIG_HOME/svc/credentials.json` (default
 * `~/.config/svc/credentials.json`), holding the API's URL and either a session JWT (from
 * `svc login --keypair`) or an API key (`svc login --api-key`). The directory is created with mode
 * 0700 and the file is written with mode 0600, atomically (a temporary file renamed over it).
 * @module
 */
import { chmod, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { CliError, EXIT } from "./errors.js";

/** What `svc login` stores. */
export interface StoredCredentials {
  /** The file format's version. */
  readonly version: 1;
  /** The core API's base URL the credential belongs to. */
  readonly url: string;
  /** `session`: a 1-hour session JWT from a wallet sign-in; `api_key`: an API key `svc_…`. */
  readonly kind: "session" | "api_key";
  /** The JWT or the API key. */
  readonly token: string;
  /** When the session expires (ISO 8601, the server's clock); null for an API key. */
  readonly expiresAt: string | null;
  /**
   * When the session expires by this machine's clock (ISO 8601): the time of sign-in plus the
   * token's lifetime (`exp − iat`), so a clock that differs from the server's does not make a
   * valid session look expired (or an expired one valid). Sessions only.
   */
  readonly localExpiresAt?: string;
  /** The wallet signed in (sessions only). */
  readonly publicKey?: string;
  /** The user id (sessions only). */
  readonly userId?: string;
  /**
   * The absolute path of the keypair file signed in with: an expired session is renewed by
   * signing in again with it (the key itself is never copied here).
   */
  readonly keypairPath?: string;
  /** The default chain RPC for `svc verify` (`svc login --rpc`). */
  readonly rpcUrl?: string;
  /** When this file was written (ISO 8601). */
  readonly savedAt: string;
}

/**
 * The CLI's configuration directory: `$XDG_CONFIG_HOME/svc` when that variable holds an absolute
 * path (the XDG Base Directory rule), else `~/.config/svc`.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
  return join(base, "svc");
}

/** The credentials file's path (see {@link configDir}). */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), "credentials.json");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function malformed(path: string, why: string): CliError {
  return new CliError({
    code: "malformed_credentials",
    message: `the credentials file ${path} is ${why}; run \`svc login\` again (or \`svc logout\`)`,
    exitCode: EXIT.auth,
  });
}

/**
 * Reads the credentials file.
 * @returns the stored credentials, or null when there is no file.
 * @throws CliError `malformed_credentials` (exit 4) when the file is not one `svc login` wrote.
 */
export async function readCredentials(env: NodeJS.ProcessEnv): Promise<StoredCredentials | null> {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return null;
    }
    throw malformed(path, `unreadable (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(path, "not JSON");
  }
  if (
    !isObject(value) ||
    value.version !== 1 ||
    typeof value.url !== "string" ||
    (value.kind !== "session" && value.kind !== "api_key") ||
    typeof value.token !== "string" ||
    value.token === ""
  ) {
    throw malformed(path, "not in the expected format");
  }
  return value as unknown as StoredCredentials;
}

/**
 * Writes the credentials file: creates the directory with mode 0700 (and tightens it to 0700 if
 * it exists), writes a temporary file with mode 0600 and renames it over the old one, so the file
 * is never readable by others, not even for a moment, and never half-written.
 * @returns the file's path.
 */
export async function writeCredentials(
  env: NodeJS.ProcessEnv,
  credentials: StoredCredentials,
): Promise<string> {
  const path = credentialsPath(env);
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // node:crypto loads here, on a write only: commands that only read credentials start faster.
  const { randomBytes } = await import("node:crypto");
  const temporary = join(dir, `.credentials.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`, "utf8");
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return path;
}

/**
 * Deletes the credentials file.
 * @returns whether there was one.
 */
export async function deleteCredentials(env: NodeJS.ProcessEnv): Promise<boolean> {
  const path = credentialsPath(env);
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return false;
    }
    throw error;
  }
}
