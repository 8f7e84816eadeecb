/**
 * drizzle-kit configuration: `pnpm --filter @verifiable-memory/db-schema db:generate` diffs src/schema against
 * the committed snapshots and writes the next SQL migration to drizzle/.
 * @module
 */
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema/index.ts",
  out: "./drizzle",
  casing: "snake_case",
});
