/**
 * Deployment of the committed ELF through the real BPF Upgradeable Loader (buffer, chunked
 * Writes, DeployWithMaxDataLen), the loader's refusal of broken ELFs, and the ELF properties
 * the SBPF v0 loader relies on.
 * Source: agave bpf_loader (loader-v3), anza-xyz/sbpf `src/elf.rs` (lenient v0 parser).
 * @module
 */

import { readFileSync } from "node:fs";
import { Keypair, PublicKey } from "@solana/web3.js";
import { LiteSVM } from "litesvm";
import { describe, expect, test } from "vitest";
import { deployCommitmentProgram, ProgramDeployError } from "../src/deploy.js";
import {
  BPF_UPGRADEABLE_LOADER_ID,
  createInitializeInstruction,
  LOCAL_PROGRAM_ID,
  programSoPath,
} from "../src/index.js";
import { assertSuccess, FUNDING, fundedKeypair, send } from "./harness.js";

const elf = new Uint8Array(readFileSync(programSoPath));

function freshChain(): { svm: LiteSVM; payer: Keypair } {
  const svm = new LiteSVM();
  const payer = Keypair.generate();
  svm.airdrop(payer.publicKey, FUNDING);
  return { svm, payer };
}

/** The committed ELF with the syscall name `sol_log_` in .dynstr renamed to `sol_lgg_`. */
function withCorruptedSyscall(): Uint8Array {
  const bytes = Buffer.from(elf);
  const at = bytes.indexOf(Buffer.from("sol_log_\0", "ascii"));
  expect(at).toBeGreaterThan(0);
  bytes.write("sol_lgg_", at, "ascii");
  return new Uint8Array(bytes);
}

/** Section names of an ELF64 LE file, read from its section header table. */
function sectionNames(bytes: Uint8Array): string[] {
  const b = Buffer.from(bytes);
  const shoff = Number(b.readBigUInt64LE(0x28));
  const shnum = b.readUInt16LE(0x3c);
  const shstrndx = b.readUInt16LE(0x3e);
  const strtabOffset = Number(b.readBigUInt64LE(shoff + 64 * shstrndx + 0x18));
  return Array.from({ length: shnum }, (_, i) => {
    const nameOffset = strtabOffset + b.readUInt32LE(shoff + 64 * i);
    return b.toString("ascii", nameOffset, b.indexOf(0, nameOffset));
  });
}

describe("deployCommitmentProgram", () => {
  test("deploys through the upgradeable loader; the program then runs", () => {
    const { svm, payer } = freshChain();
    const programId = new PublicKey(LOCAL_PROGRAM_ID);
    const deployed = deployCommitmentProgram(svm, programId, payer);

    expect(deployed.transactionCount).toBe(2 + Math.ceil(elf.length / 1000));
    const program = svm.getAccount(programId);
    expect(program?.executable).toBe(true);
    expect(program?.owner.equals(BPF_UPGRADEABLE_LOADER_ID)).toBe(true);
    const programData = svm.getAccount(deployed.programDataAddress);
    // ProgramData: tag u32 = 3, slot u64, Some(upgrade authority) = payer, then the ELF.
    const header = Buffer.from(programData?.data ?? []);
    expect(header.readUInt32LE(0)).toBe(3);
    expect(header[12]).toBe(1);
    expect(header.subarray(13, 45).equals(payer.publicKey.toBuffer())).toBe(true);
    expect(Buffer.from(header.subarray(45)).equals(Buffer.from(elf))).toBe(true);
    expect(svm.getAccount(deployed.bufferAddress)).toBeNull();

    const authority = fundedKeypair(svm);
    const result = send(svm, authority, [
      createInitializeInstruction({
        programId,
        authority: authority.publicKey,
        owner: Keypair.generate().publicKey,
      }),
    ]);
    expect(assertSuccess(result).logs()).toContain("Program log: Instruction: Initialize");
  });

  test("small chunks and a larger max data length deploy the same program", () => {
    const { svm, payer } = freshChain();
    const programId = Keypair.generate().publicKey;
    const deployed = deployCommitmentProgram(svm, programId, payer, {
      chunkSize: 700,
      maxDataLen: elf.length * 2,
    });
    expect(deployed.transactionCount).toBe(2 + Math.ceil(elf.length / 700));
    expect(svm.getAccount(deployed.programDataAddress)?.data.length).toBe(45 + elf.length * 2);
    const owner = Keypair.generate().publicKey;
    assertSuccess(
      send(svm, payer, [
        createInitializeInstruction({ programId, authority: payer.publicKey, owner }),
      ]),
    );
  });

  test("negative control: an ELF calling an unknown syscall is refused at deploy", () => {
    const { svm, payer } = freshChain();
    const programId = Keypair.generate().publicKey;
    const broken = withCorruptedSyscall();
    let error: unknown;
    try {
      deployCommitmentProgram(svm, programId, payer, { programBytes: broken });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ProgramDeployError);
    const deployError = error as ProgramDeployError;
    expect(deployError.step).toBe("deploy");
    expect(deployError.logs.join("\n")).toContain("Unresolved symbol (sol_lgg_)");
    expect(svm.getAccount(programId)?.executable).toBe(false);

    // litesvm's addProgram accepts the same bytes: the reason deployment goes through the loader.
    expect(() => svm.addProgram(Keypair.generate().publicKey, broken)).not.toThrow();
  });

  test("a truncated ELF is refused at deploy", () => {
    const { svm, payer } = freshChain();
    expect(() =>
      deployCommitmentProgram(svm, Keypair.generate().publicKey, payer, {
        programBytes: elf.subarray(0, elf.length - 64),
      }),
    ).toThrow(ProgramDeployError);
  });

  test("programmer misuse fails fast", () => {
    const { svm, payer } = freshChain();
    expect(() =>
      deployCommitmentProgram(svm, Keypair.generate().publicKey, payer, { chunkSize: 0 }),
    ).toThrow(TypeError);
    expect(() =>
      deployCommitmentProgram(svm, Keypair.generate().publicKey, payer, { maxDataLen: 10 }),
    ).toThrow(TypeError);
    expect(() => deployCommitmentProgram(svm, payer.publicKey, payer)).toThrow(/already exists/);
  });
});

describe("committed commitment.so", () => {
  test("is an SBPF v0 shared object with only the sections the loader reads", () => {
    const b = Buffer.from(elf);
    expect(b.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(b.readUInt16LE(0x10)).toBe(3); // ET_DYN
    expect(b.readUInt16LE(0x12)).toBe(247); // EM_BPF
    expect(b.readUInt32LE(0x30)).toBe(0); // e_flags 0 = SBPF v0
    expect(sectionNames(elf)).toEqual([
      "",
      ".text",
      ".rodata",
      ".dynamic",
      ".dynsym",
      ".dynstr",
      ".rel.dyn",
      ".shstrtab",
    ]);
  });

  test("names only the syscalls the program uses, and no build path", () => {
    const text = Buffer.from(elf).toString("latin1");
    for (const name of [
      "sol_log_",
      "sol_try_find_program_address",
      "sol_create_program_address",
      "sol_invoke_signed_c",
      "sol_get_rent_sysvar",
    ]) {
      expect(text).toContain(`\0${name}\0`);
    }
    expect(text).not.toMatch(/\/work|\/tmp|\.c\0|clang/);
  });
});
