/**
 * `@verifiable-memory/runtime` (private): what being one of the service's processes takes.
 * Today the logger every app uses (`LOG_LEVEL`, readable on a terminal, JSON otherwise) and the
 * access-log level of a request (health probes and metrics scrapes at `debug`).
 * @module
 */
export {
  createLogger,
  LOG_LEVELS,
  type LoggerOptions,
  type LogLevel,
  LogLevelSchema,
  type LogOutput,
  PROBE_PATHS,
  requestLogLevel,
} from "./logger.js";
