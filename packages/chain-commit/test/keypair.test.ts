/**
 * loadKeypairFile: the Solana CLI JSON keypair format round-trips, and every malformed file is a
 * KeypairFileError naming the path.
 * Source: solana-keygen keypair file format (JSON array of the 64 secret-key bytes).
 * @module
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { afterAll, describe, expect, it } from "vitest";
import { KeypairFileError, loadKeypairFile } from "../src/index.js";
import { removeDir, tempDir } from "./helpers.js";

const dir = tempDir();
afterAll(() => removeDir(dir));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("loadKeypairFile", () => {
  it("reads a Solana CLI keypair file", () => {
    const keypair = Keypair.generate();
    const path = file("id.json", JSON.stringify(Array.from(keypair.secretKey)));
    expect(loadKeypairFile(path).publicKey.toBase58()).toBe(keypair.publicKey.toBase58());
  });

  it.each([
    ["missing", null],
    ["not JSON", "[1,2,"],
    ["an object", '{"secretKey":[]}'],
    ["63 bytes", JSON.stringify(new Array(63).fill(1))],
    ["a byte above 255", JSON.stringify([...new Array(63).fill(1), 256])],
    [
      "a public key that does not match",
      JSON.stringify([
        ...Keypair.generate().secretKey.subarray(0, 32),
        ...Keypair.generate().publicKey.toBytes(),
      ]),
    ],
  ])("refuses a file that is %s", (name, content) => {
    const path = content === null ? join(dir, "absent.json") : file(`${name}.json`, content);
    let error: unknown;
    try {
      loadKeypairFile(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeypairFileError);
    expect(error).toMatchObject({ code: "invalid_keypair_file", path });
  });

  it("says a missing file does not exist, not a bare ENOENT", () => {
    const path = join(dir, "nowhere.json");
    expect(() => loadKeypairFile(path)).toThrow(`keypair file ${path}: does not exist`);
  });
});
