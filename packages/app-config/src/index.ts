/**
 * `@verifiable-memory/app-config`: validating an app's environment once at start (docs/protocol.md
 * §10 "Configuration"): one error type naming every bad variable, one parse step, and the variables
 * several apps share.
 * @module
 */

export {
  base58PublicKey,
  databaseUrl,
  flag,
  masterKey,
  optionalText,
  perMinuteLimit,
  port,
  positiveInt,
  previousMasterKeys,
  recallLanguage,
  siwsChainId,
  siwsDomain,
  url,
} from "./fields.js";
export { type LogKey, type LogKeyEnv, loadLogKey } from "./log-key.js";
export { ConfigError, type ConfigIssue, parseConfig } from "./parse.js";
