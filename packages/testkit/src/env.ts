/**
 * The environment the test apps run with.
 * @module
 */

/**
 * Settings both HTTP apps read in tests: a JWT secret, a master key (32 bytes of 7s, so apps
 * started side by side share it), the sign-in domain and chain, and rate limits off (a test file
 * signs in more wallets a minute from 127.0.0.1 than any client would; rate-limit tests set
 * their own limits).
 */
export const TEST_ENV = {
  JWT_SECRET: "test-secret-that-is-long-enough-0123456789",
  MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  SIWS_DOMAIN: "localhost:8787",
  SIWS_URI: "http://localhost:8787",
  SIWS_CHAIN_ID: "devnet",
  SERVICE_NAME: "Verifiable Memory",
  PUBLIC_BASE_URL: "http://localhost:8787",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
} as const;
