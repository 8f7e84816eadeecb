/**
 * `@verifiable-memory/http-kit`: the HTTP plumbing both APIs share (docs/protocol.md §1, §12): the error shape and
 * handler, request ids and the access log, the JSON body rules, the rate limits, the OpenAPI error
 * schema and validation hook, health and readiness routes, and draining requests in flight on
 * shutdown.
 * @module
 */

export { buildRouteMatcher, createApiApp, publishApiApp } from "./api-app.js";
export { authenticateBearer, type BearerCheck } from "./bearer-challenge.js";
export {
  BODY_LIMIT_BYTES,
  limitBody,
  type NodeEnv,
  type RouteBodyLimits,
  requireJsonBody,
} from "./body.js";
export {
  CURSOR_KEY_INFO,
  CURSOR_TAG_BYTES,
  type CursorKey,
  cursorKey,
  openCursor,
  SEALED_CURSOR_MAX_CHARS,
  sealCursor,
} from "./cursor-seal.js";
export {
  ApiError,
  type BaseErrorCode,
  createErrorHandler,
  type ErrorHandlerOptions,
  errorBody,
  isDatabaseUnavailable,
  type LoggedError,
  loggableError,
} from "./errors.js";
export { type Readiness, registerHealthRoutes } from "./health.js";
export { type InFlightTracker, trackInFlight } from "./in-flight.js";
export {
  type MemoryRouteOptions,
  registerCreateMemoryRoute,
  registerSearchMemoriesRoute,
} from "./memory-routes.js";
export {
  ErrorSchema,
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
  validationHook,
  withoutNul,
} from "./openapi.js";
export {
  clientIp,
  limitPerClientIp,
  RATE_LIMIT_WINDOW_SECONDS,
  type RateLimitConfig,
  type RateLimitEnv,
  RateLimits,
  rateLimitAddressKey,
} from "./rate-limit.js";
export { PROBE_PATHS, type RequestIdEnv, requestLog, requestLogLevel } from "./request-log.js";
export {
  answerClientErrors,
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  SERVER_OPTIONS,
} from "./server-limits.js";
export { BASE_STATUS, type SharedErrorCode } from "./status.js";
export { checkStrictJson } from "./strict-json.js";
