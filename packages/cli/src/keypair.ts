/**
 * Solana CLI keypair files (`solana-keygen new -o id.json`): a JSON array of the 64 bytes
 * `seed ‖ public key`. The key is read for a sign-in and never copied anywhere.
 * @module
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { usageError } from "./errors.js";

/** Where the Solana CLI keeps its default keypair: `~/.config/solana/id.json`. */
export function defaultKeypairPath(env: NodeJS.ProcessEnv): string {
  return join(env.HOME || homedir(), ".config", "solana", "id.json");
}

/** `path` with a leading `~/` expanded to the home directory, made absolute. */
export function expandPath(path: string, env: NodeJS.ProcessEnv): string {
  if (path === "~" || path.startsWith("~/")) {
    return join(env.HOME || homedir(), path.slice(1));
  }
  return resolve(path);
}

/**
 * Reads a Solana CLI keypair file.
 * @returns the 64-byte secret key (`seed ‖ public key`).
 * @throws CliError usage (exit 2) when the file cannot be read or is not a JSON array of 64
 *   integers from 0 to 255.
 */
export async function readKeypairFile(path: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw usageError(`cannot read the keypair file ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`the keypair file ${path} is not JSON`);
  }
  if (
    !Array.isArray(value) ||
    value.length !== 64 ||
    !value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255)
  ) {
    throw usageError(
      `the keypair file ${path} is not a Solana CLI keypair (a JSON array of 64 bytes)`,
    );
  }
  return Uint8Array.from(value as number[]);
}
