/**
 * The checkpoint log account codec and address: the discriminator against node:crypto, a
 * hand-built 89-byte account decoded field by field, the refusals of other data, and the PDA
 * against web3.js's findProgramAddressSync. (The bytes the real program writes are decoded by the
 * verifier's chain tests, which run the program.)
 */
import { createHash, randomBytes } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR,
  CHECKPOINT_LOG_ACCOUNT_SIZE,
  decodeCheckpointLog,
  findCheckpointLogAddress,
  InvalidCommitmentDataError,
} from "../src/index.js";

function account(authority: PublicKey, root: Uint8Array, size: bigint, nonce: bigint): Uint8Array {
  const data = new Uint8Array(CHECKPOINT_LOG_ACCOUNT_SIZE);
  const view = new DataView(data.buffer);
  data.set(CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR, 0);
  data.set(authority.toBytes(), 8);
  data.set(root, 40);
  view.setBigUint64(72, size, true);
  view.setBigUint64(80, nonce, true);
  data[88] = 254;
  return data;
}

describe("the checkpoint log account", () => {
  it("has the discriminator sha256('account:CheckpointLog')[..8] = 59 d8 37 af 3e 0d 65 d7", () => {
    const digest = createHash("sha256").update("account:CheckpointLog").digest();
    expect([...CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR]).toEqual([...digest.subarray(0, 8)]);
    expect(Buffer.from(CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR).toString("hex")).toBe(
      "59d837af3e0d65d7",
    );
  });

  it("decodes a hand-built account field by field (u64 little-endian)", () => {
    const authority = new PublicKey(randomBytes(32));
    const root = randomBytes(32);
    const decoded = decodeCheckpointLog(account(authority, root, 2n ** 40n + 7n, 2n ** 33n + 1n));
    expect(decoded).toEqual({
      authority: authority.toBase58(),
      root: Uint8Array.from(root),
      size: 2n ** 40n + 7n,
      nonce: 2n ** 33n + 1n,
      bump: 254,
    });
  });

  it("refuses data of another size or discriminator", () => {
    const good = account(new PublicKey(randomBytes(32)), randomBytes(32), 1n, 1n);
    expect(() => decodeCheckpointLog(good.subarray(0, 88))).toThrow(InvalidCommitmentDataError);
    expect(() => decodeCheckpointLog(Uint8Array.from([...good, 0]))).toThrow(
      InvalidCommitmentDataError,
    );
    const other = Uint8Array.from(good);
    other[0] = (other[0] as number) ^ 1;
    expect(() => decodeCheckpointLog(other)).toThrow(/CheckpointLog/);
  });

  it("lives at find_program_address(['checkpoint-log', authority], program), as web3.js finds it", () => {
    for (let i = 0; i < 8; i++) {
      const authority = new PublicKey(randomBytes(32));
      const program = new PublicKey(randomBytes(32));
      const [address, bump] = PublicKey.findProgramAddressSync(
        [Buffer.from("checkpoint-log", "utf8"), authority.toBuffer()],
        program,
      );
      expect(findCheckpointLogAddress(authority.toBase58(), program.toBytes())).toEqual({
        address: address.toBase58(),
        bump,
      });
    }
    expect(() =>
      findCheckpointLogAddress("not a key", new PublicKey(randomBytes(32)).toBase58()),
    ).toThrow(/authority/);
  });
});
