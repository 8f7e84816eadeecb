/**
 * Location of the committed program binary and the program id of the embedded local chain.
 * Source: programs/commitment/README.md ("Build", "Deploy").
 * @module
 */

import { fileURLToPath } from "node:url";
import { PublicKey } from "@solana/web3.js";

/**
 * Program id under which the embedded local chain (packages/litesvm-rpc, run by apps/local-chain) deploys the commitment
 * program. Base58, 32 bytes. Other packages rely on this exact value.
 */
export const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

/**
 * Absolute filesystem path of the committed SBPF v0 ELF `programs/commitment/commitment.so`
 * (built by build.sh, checked by verify-build.sh).
 */
export const programSoPath: string = fileURLToPath(new URL("../commitment.so", import.meta.url));

/** The BPF Upgradeable Loader (loader-v3) program id: owner of deployed programs' ProgramData. */
export const BPF_UPGRADEABLE_LOADER_ID = new PublicKey(
  "BPFLoaderUpgradeab1e11111111111111111111111",
);
