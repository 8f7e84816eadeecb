/**
 * `@verifiable-memory/testkit` (private): what tests in more than one workspace share. A real
 * app over real HTTP on a fresh database ({@link startTestApp}, generic over the app), the
 * {@link TestClock}, real ed25519 wallets and sign-in, HTTP helpers, the anchoring local chain
 * (re-exporting `@verifiable-memory/litesvm-rpc`), the whole service as processes
 * ({@link startLocalService}) and the MCP tool call. No test imports another
 * workspace's test folder (`pnpm lint` checks it): shared test support lives here.
 * @module
 */
export { type Clock, systemClock, TEST_CLOCK_START, TestClock } from "@verifiable-memory/clock";
export {
  type StartTestAppOptions,
  serveTestApp,
  startTestApp,
  type TestApp,
  type TestAppDeps,
  type TestAppFactory,
  type TestFetch,
  type TestServer,
} from "./app.js";
export {
  type AnchoringChain,
  type AnchorReport,
  type AnchorStep,
  requestAirdrop,
  startAnchoringChain,
  startLocalChain,
  warpClock,
} from "./chain.js";
export { TEST_ENV } from "./env.js";
export {
  bearer,
  connect,
  EXTENSION_ORIGIN,
  EXTENSION_TEST_ENV,
  REDIRECT_URI,
} from "./extension.js";
export {
  type Answer,
  call,
  callAt,
  expectRateLimited,
  type HttpTarget,
  type JsonRequest,
  mintApiKey,
  newUser,
  postJson,
  request,
  send,
  signIn,
  type TestUser,
} from "./http.js";
export { McpClients, MEMORY_TOOL_NAMES, type Recalled, type ToolError, tool } from "./mcp.js";
export {
  type LocalService,
  type LocalServiceOptions,
  newSolanaKeypair,
  type ServiceDatabase,
  type ServiceFront,
  type SolanaKeypair,
  startLocalService,
} from "./service.js";
export { newWallet, type Wallet } from "./wallet.js";
