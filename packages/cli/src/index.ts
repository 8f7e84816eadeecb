/**
 * `@verifiable-memory/cli`: the `svc` command line over `@verifiable-memory/client`. The binary is bin/svc.js; `run` is
 * exported for embedding and tests.
 * @module
 */
export {
  buildProgram,
  COMMAND_MODULES,
  commandName,
  jsonRequested,
  type RunOptions,
  run,
} from "./cli.js";
export { configDir, credentialsPath, type StoredCredentials } from "./credentials.js";
export { EXIT, type ExitCode } from "./errors.js";
