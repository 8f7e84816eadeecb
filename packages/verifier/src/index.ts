/**
 * `@verifiable-memory/verifier`: permissionless verification of a memory's proof bundle against the chain
 * (docs/protocol.md §4, §2 Authorization rule 4; docs/protocol.md §4, §6). `verifyBundle` is the core; the
 * `svc-verify` command line is a thin shell over it. It never trusts the memory API: the only
 * thing it may ask it for (with `apiUrl`) is a public RFC 9162 consistency proof that bridges an
 * old bundle to the on-chain root, and that proof is verified, not believed (docs/protocol.md §6.3).
 *
 * The Node.js entry: everything of the browser entry (browser.ts), and the `svc-verify` command line.
 * @module
 */
export * from "./browser.js";
export { type CliIo, processIo, runCli, USAGE } from "./cli.js";
