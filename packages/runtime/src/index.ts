/**
 * `@verifiable-memory/runtime` (private): what being one of the service's processes takes.
 * The logger every app uses (`LOG_LEVEL`, readable on a terminal, JSON otherwise); the HTTP API
 * app of a process (`startHttpService`: database, migrations, server, shutdown hooks) and its readiness check;
 * `runService`, the frame of every `main.ts` (one shutdown coordinator, one signal policy, one
 * bad-configuration exit).
 * @module
 */

export {
  APP_DATABASE_NAME,
  type EmbeddedDatabase,
  type EmbeddedPostgresHandle,
  type EmbeddedPostgresOptions,
  type EnsureEmbeddedOptions,
  ensureEmbeddedPostgres,
  handleShutdownSignals,
  type ResolvedDatabase,
  resolveDatabaseUrl,
  type ServerExit,
  startEmbeddedPostgres,
} from "./embedded.js";
export { type HttpServiceOptions, startHttpService } from "./http-process.js";
export {
  createLogger,
  LOG_LEVELS,
  type LoggerOptions,
  type LogLevel,
  LogLevelSchema,
  type LogOutput,
} from "./logger.js";
export { databaseReadiness } from "./readiness.js";
export {
  configErrorExit,
  loadServiceConfig,
  runService,
  type ServiceContext,
  type ServiceOptions,
  SHUTDOWN_TIMEOUT_MS,
  ShutdownCoordinator,
  type ShutdownHook,
  type ShutdownOptions,
} from "./shutdown.js";
export {
  DEFAULT_RESTART_POLICY,
  describeExit,
  describeSupervisorEvent,
  type GaveUp,
  type RestartPolicy,
  type RunningChild,
  type SupervisedChild,
  Supervisor,
  type SupervisorEvent,
  type SupervisorOptions,
} from "./supervisor.js";
