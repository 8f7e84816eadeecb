/**
 * Reading the authority keypair from a Solana CLI JSON keypair file (`solana-keygen new -o
 * file.json`): a JSON array of 64 integers 0..255, the ed25519 seed followed by the public key.
 * Source: docs/protocol.md §7 (AUTHORITY_KEYPAIR_PATH); solana-keygen `write_keypair_file` format.
 * @module
 */

import { readFileSync } from "node:fs";
import { Keypair } from "@solana/web3.js";
import { KeypairFileError } from "./errors.js";

/**
 * Loads the keypair in the Solana CLI JSON keypair file at `path`.
 * @returns the keypair (its public key is checked against the seed).
 * @throws KeypairFileError when the file cannot be read, is not JSON, is not an array of 64
 *   integers in 0..255, or its public key half does not match its secret half.
 * @example const authority = loadKeypairFile(env.AUTHORITY_KEYPAIR_PATH);
 */
export function loadKeypairFile(path: string): Keypair {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new KeypairFileError(
      path,
      missing ? "does not exist" : `cannot be read (${(error as Error).message})`,
      error,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new KeypairFileError(path, "is not JSON", error);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 64 ||
    !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    throw new KeypairFileError(path, "must be a JSON array of 64 integers in 0..255");
  }
  try {
    return Keypair.fromSecretKey(Uint8Array.from(parsed as number[]));
  } catch (error) {
    throw new KeypairFileError(path, "public key does not match the secret key", error);
  }
}
