/**
 * `svc keygen [--out PATH]`: a new wallet keypair in a Solana CLI keypair file (the format
 * `solana-keygen new -o PATH` writes and `svc login` reads), for trying the service without a
 * wallet of one's own. It never overwrites a file.
 * @module
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import bs58 from "bs58";
import type { Command } from "commander";
import { usageError } from "../errors.js";
import { defaultKeypairPath, expandPath } from "../keypair.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";

interface KeygenOptions {
  readonly out?: string;
}

/**
 * Writes a new ed25519 keypair to `path` as a Solana CLI keypair file: a JSON array of the 64 bytes
 * `seed ‖ public key`, mode 0600, its folder created (mode 0700) when missing. The file is opened
 * with `O_EXCL`, so an existing file is never replaced, even one created at the same moment.
 * @returns the public key, base58.
 * @throws CliError usage (exit 2) when `path` exists or cannot be written.
 */
export async function writeNewKeypairFile(path: string): Promise<string> {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const seed = Buffer.from(jwk.d ?? "", "base64url");
  const publicKey = Buffer.from(jwk.x ?? "", "base64url");
  const bytes = [...seed, ...publicKey];
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, `${JSON.stringify(bytes)}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw usageError(
        `${path} already exists; svc keygen never overwrites a keypair (choose another --out)`,
      );
    }
    throw usageError(`cannot write ${path}: ${(error as Error).message}`);
  }
  return bs58.encode(publicKey);
}

/** Registers `keygen` on `program`. */
export function registerKeygenCommand(program: Command, rt: Runtime): void {
  program
    .command("keygen")
    .description(
      "Write a new wallet keypair as a Solana CLI keypair file (mode 0600; never overwrites); svc login reads it",
    )
    .option("-o, --out <path>", "where to write it (default ~/.config/solana/id.json)")
    .action(async (_options: KeygenOptions, command: Command) => {
      const options = optionsOf<KeygenOptions>(command);
      const out = outputOf(rt, options);
      const path =
        options.out === undefined ? defaultKeypairPath(rt.env) : expandPath(options.out, rt.env);
      const publicKey = await writeNewKeypairFile(path);
      await out.result({ path, publicKey }, () => [
        `Wrote a new keypair to ${path} (mode 0600).`,
        `Public key: ${publicKey}`,
        "Keep the file secret: it is the wallet. Sign in with it: svc login",
      ]);
    });
}
