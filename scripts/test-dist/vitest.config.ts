import { defineConfig } from "vitest/config";

// `pnpm test:dist` (scripts/test-dist/dist.test.ts): not part of `pnpm test`, which reads the
// workspace's sources; this one runs the packed tarballs. The service's database comes from
// DATABASE_URL, else an embedded PostgreSQL (the same global setup as `pnpm test`).
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["scripts/test-dist/**/*.test.ts"],
    globalSetup: ["packages/testkit/src/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: "forks",
  },
});
