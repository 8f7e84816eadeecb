/**
 * `@verifiable-memory/core-api`: the main HTTP API (docs/protocol.md §1). `createApp(deps)` for tests and embedding;
 * `src/main.ts` is the process entry.
 * @module
 */
export { createApp } from "./app.js";
export type { App, AppDeps, AppEnv } from "./context.js";
export { type Config, ConfigError, loadConfig } from "./env.js";
export { ApiError, codeToStatus, type ErrorCode } from "./errors.js";
