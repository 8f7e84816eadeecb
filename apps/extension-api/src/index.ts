/**
 * `@verifiable-memory/extension-api`: the browser extension's HTTP API (docs/protocol.md §4, §1, §3, §9).
 * `createApp(deps)` for tests and embedding; `src/main.ts` is the process entry.
 * @module
 */
export { createApp } from "./app.js";
export { connectScript } from "./connect-page.js";
export type { App, AppDeps, AppEnv } from "./context.js";
export { type Config, loadConfig } from "./env.js";
export { ApiError, codeToStatus, type ErrorCode } from "./errors.js";
