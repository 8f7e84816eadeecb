/**
 * Deployment of an SBPF program into a litesvm instance through the real BPF Upgradeable
 * Loader: create and initialize a buffer account, copy the ELF into it with `Write`
 * instructions, then `DeployWithMaxDataLen`. Unlike litesvm's lenient `addProgram`, this runs
 * the loader's deployment checks (ELF parsing, relocation, syscall resolution, verifier), so a
 * broken ELF is refused here exactly as a cluster would refuse it.
 *
 * Source: agave `programs/bpf_loader` (UpgradeableLoaderInstruction, bincode with a u32 tag)
 * and `sdk/loader-v3-interface` (UpgradeableLoaderState sizes: buffer metadata 37 bytes,
 * program account 36 bytes).
 * @module
 */

import { readFileSync } from "node:fs";
import {
  Keypair,
  PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from "@solana/web3.js";
import { FailedTransactionMetadata, type LiteSVM } from "litesvm";
import { BPF_UPGRADEABLE_LOADER_ID, programSoPath } from "./program.js";

export { BPF_UPGRADEABLE_LOADER_ID };

/** UpgradeableLoaderState::size_of_buffer_metadata(): enum tag u32 + Option<Pubkey>. */
const BUFFER_METADATA_SIZE = 37;
/** UpgradeableLoaderState::size_of_program(): enum tag u32 + programdata address. */
const PROGRAM_ACCOUNT_SIZE = 36;
/** Largest Write payload that keeps a one-signer Write transaction under 1232 bytes. */
const DEFAULT_CHUNK_SIZE = 1000;

const IX_INITIALIZE_BUFFER = 0;
const IX_WRITE = 1;
const IX_DEPLOY_WITH_MAX_DATA_LEN = 2;

/** Options of {@link deployCommitmentProgram}. */
export interface DeployOptions {
  /** ELF bytes to deploy; default: the committed `commitment.so`. */
  readonly programBytes?: Uint8Array;
  /** Bytes per `Write` instruction, 1..1000; default 1000. */
  readonly chunkSize?: number;
  /** Program data capacity in bytes (≥ the ELF length); default: the ELF length. */
  readonly maxDataLen?: number;
}

/** Addresses involved in a completed deployment. */
export interface DeployedProgram {
  /** The executable program account (owned by the upgradeable loader). */
  readonly programId: PublicKey;
  /** PDA([programId], loader) holding the ELF; its upgrade authority is the payer. */
  readonly programDataAddress: PublicKey;
  /** The buffer the ELF was staged in (closed by the deployment). */
  readonly bufferAddress: PublicKey;
  /** Number of transactions sent (create buffer, writes, deploy). */
  readonly transactionCount: number;
}

/** A loader transaction of the deployment failed; `logs` carries the runtime's explanation. */
export class ProgramDeployError extends Error {
  override readonly name = "ProgramDeployError";

  constructor(
    /** Which step failed: "buffer", "write" or "deploy". */
    readonly step: "buffer" | "write" | "deploy",
    /** The transaction error as printed by litesvm. */
    readonly reason: string,
    /** Program logs of the failed transaction. */
    readonly logs: readonly string[],
  ) {
    super(`program deployment failed at ${step}: ${reason}\n${logs.join("\n")}`);
  }
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
}

function u64(value: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt(value));
  return out;
}

function send(
  svm: LiteSVM,
  step: ProgramDeployError["step"],
  payer: Keypair,
  signers: readonly Keypair[],
  instructions: readonly TransactionInstruction[],
): void {
  const tx = new Transaction();
  tx.feePayer = payer.publicKey;
  tx.recentBlockhash = svm.latestBlockhash();
  tx.add(...instructions);
  tx.sign(payer, ...signers);
  const result = svm.sendTransaction(tx);
  if (result instanceof FailedTransactionMetadata) {
    throw new ProgramDeployError(step, result.err().toString(), result.meta().logs());
  }
}

/**
 * Deploys an SBPF program (default: the committed commitment program) at `programId` in `svm`
 * through the BPF Upgradeable Loader, the path `solana program deploy` takes on a cluster.
 *
 * The program account itself is placed with `svm.setAccount` (36 bytes, uninitialized, owned
 * by the loader, rent-exempt) because `programId` is a fixed address whose keypair the caller
 * may not hold; everything after that — buffer creation, `InitializeBuffer`, chunked `Write`s
 * and `DeployWithMaxDataLen` — runs as real transactions signed by `payer`, which pays for the
 * buffer and the program data account and becomes the upgrade authority. The program can be
 * invoked in the transactions that follow (litesvm applies the deployment at once).
 *
 * Shapes: `svm` needs the default builtins and sysvars (`new LiteSVM()`); `payer` must hold
 * enough lamports for two rent-exempt accounts of about the ELF size plus fees (≈ 0.23 SOL for
 * the 16 KiB commitment program).
 *
 * @throws TypeError if `chunkSize` is not an integer in 1..1000 or `maxDataLen` is smaller
 *   than the ELF; Error if `programId` already holds an account.
 * @throws ProgramDeployError when a loader transaction fails, e.g. an ELF naming an unknown
 *   syscall is refused at "deploy" with `Unresolved symbol`.
 * Source: agave bpf_loader `process_loader_upgradeable_instruction` (InitializeBuffer, Write,
 * DeployWithMaxDataLen).
 */
export function deployCommitmentProgram(
  svm: LiteSVM,
  programId: PublicKey,
  payer: Keypair,
  options: DeployOptions = {},
): DeployedProgram {
  const elf = options.programBytes ?? new Uint8Array(readFileSync(programSoPath));
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const maxDataLen = options.maxDataLen ?? elf.length;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > DEFAULT_CHUNK_SIZE) {
    throw new TypeError(
      `chunkSize must be an integer in 1..${DEFAULT_CHUNK_SIZE}, got ${chunkSize}`,
    );
  }
  if (!Number.isInteger(maxDataLen) || maxDataLen < elf.length) {
    throw new TypeError(`maxDataLen must be an integer ≥ ${elf.length}, got ${maxDataLen}`);
  }
  if (svm.getAccount(programId) !== null) {
    throw new Error(`an account already exists at ${programId.toBase58()}`);
  }

  svm.setAccount(programId, {
    lamports: Number(svm.minimumBalanceForRentExemption(BigInt(PROGRAM_ACCOUNT_SIZE))),
    data: new Uint8Array(PROGRAM_ACCOUNT_SIZE),
    owner: BPF_UPGRADEABLE_LOADER_ID,
    executable: false,
    rentEpoch: 0,
  });

  const buffer = Keypair.generate();
  const bufferSize = BUFFER_METADATA_SIZE + elf.length;
  send(
    svm,
    "buffer",
    payer,
    [buffer],
    [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: buffer.publicKey,
        lamports: Number(svm.minimumBalanceForRentExemption(BigInt(bufferSize))),
        space: bufferSize,
        programId: BPF_UPGRADEABLE_LOADER_ID,
      }),
      new TransactionInstruction({
        programId: BPF_UPGRADEABLE_LOADER_ID,
        keys: [
          { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
          { pubkey: payer.publicKey, isSigner: false, isWritable: false },
        ],
        data: u32(IX_INITIALIZE_BUFFER),
      }),
    ],
  );
  let transactionCount = 1;

  for (let offset = 0; offset < elf.length; offset += chunkSize) {
    const bytes = elf.subarray(offset, Math.min(offset + chunkSize, elf.length));
    send(
      svm,
      "write",
      payer,
      [],
      [
        new TransactionInstruction({
          programId: BPF_UPGRADEABLE_LOADER_ID,
          keys: [
            { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
            { pubkey: payer.publicKey, isSigner: true, isWritable: false },
          ],
          data: Buffer.concat([u32(IX_WRITE), u32(offset), u64(bytes.length), bytes]),
        }),
      ],
    );
    transactionCount++;
  }

  const [programDataAddress] = PublicKey.findProgramAddressSync(
    [programId.toBuffer()],
    BPF_UPGRADEABLE_LOADER_ID,
  );
  send(
    svm,
    "deploy",
    payer,
    [],
    [
      new TransactionInstruction({
        programId: BPF_UPGRADEABLE_LOADER_ID,
        keys: [
          { pubkey: payer.publicKey, isSigner: true, isWritable: true },
          { pubkey: programDataAddress, isSigner: false, isWritable: true },
          { pubkey: programId, isSigner: false, isWritable: true },
          { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
          { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
          { pubkey: payer.publicKey, isSigner: true, isWritable: false },
        ],
        data: Buffer.concat([u32(IX_DEPLOY_WITH_MAX_DATA_LEN), u64(maxDataLen)]),
      }),
    ],
  );
  transactionCount++;

  return { programId, programDataAddress, bufferAddress: buffer.publicKey, transactionCount };
}
