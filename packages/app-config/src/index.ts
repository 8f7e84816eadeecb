/**
 * `@verifiable-memory/app-config`: validating an app's environment once at start (docs/protocol.md §10 "Every configuration
 * value is validated at startup"; §10 "the process does not start"): one error type naming every
 * bad variable, one parse step, and the variables several apps share.
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
export { ConfigError, type ConfigIssue, parseConfig } from "./parse.js";
