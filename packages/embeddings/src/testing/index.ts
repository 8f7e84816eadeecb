/**
 * Test helpers of `@verifiable-memory/embeddings` (tests and benchmarks only: they need the
 * package's development dependencies).
 * @module
 */
export {
  type InjectedFailure,
  startTestModelServer,
  TEST_MODEL,
  type TestModelServer,
} from "./test-model-server.js";
