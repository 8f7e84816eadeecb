import { defineConfig } from "vitest/config";

// One vitest run for the whole workspace, so `pnpm test` prints one summary.
// Database tests get a real PostgreSQL from the global setup: DATABASE_URL when set,
// otherwise an embedded PostgreSQL started for the run (packages/db-schema/src/testing).
export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "apps/*/src/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "programs/*/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
      "e2e/**/*.test.ts",
    ],
    globalSetup: ["packages/testkit/src/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
