/**
 * CI smoke test of the embedded default database (docs/protocol.md §10: DATABASE_URL absent → embedded
 * PostgreSQL in DATA_DIR). With DATABASE_URL unset it starts the embedded PostgreSQL in a temporary
 * DATA_DIR through resolveDatabaseUrl, migrates, writes a memory with appendMemories, reads it
 * back, stops the server and prints one line. Exit code 0 on success, 1 on failure.
 * Run: `env -u DATABASE_URL pnpm exec tsx infra/ci/embedded-smoke.ts`.
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appendMemories,
  createDatabase,
  getMemory,
  getTree,
  migrateDatabase,
  upsertUserByPubkey,
} from "../../packages/db-schema/src/index.js";
import { hashLeaf, rootFromLeafHashes, toHex } from "../../packages/merkle-log/src/index.js";
import { resolveDatabaseUrl } from "../../packages/runtime/src/index.js";

const TIMEOUT_MS = 120_000;

async function smoke(dataDir: string): Promise<string> {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    throw new Error("DATABASE_URL is set; the smoke test needs the embedded default");
  }
  const resolved = await resolveDatabaseUrl({ databaseUrl, dataDir });
  try {
    if (!resolved.embedded?.startedHere) {
      throw new Error("expected a freshly started embedded PostgreSQL");
    }
    await migrateDatabase(resolved.url);
    const handle = createDatabase({ url: resolved.url, max: 2 });
    try {
      const { user } = await upsertUserByPubkey(handle.db, {
        ownerPubkey: `smoke${randomBytes(8).toString("hex")}`,
        makeWrappedKey: () => randomBytes(60),
      });
      const id = randomUUID();
      const ciphertext = new TextEncoder().encode("smoke body");
      const leafHash = hashLeaf(new TextEncoder().encode(`smoke:${id}`));
      const appended = await appendMemories(handle.db, user.id, [
        {
          id,
          ciphertext,
          iv: randomBytes(12),
          leafHash,
          metadata: { smoke: true },
          createdAt: new Date(),
        },
      ]);
      const row = await getMemory(handle.db, user.id, id);
      const tree = await getTree(handle.db, user.id);
      const expectedRoot = toHex(rootFromLeafHashes([leafHash]));
      if (
        !row ||
        new TextDecoder().decode(row.ciphertext ?? new Uint8Array()) !== "smoke body" ||
        row.leafIndex !== 0 ||
        row.metadata.smoke !== true ||
        tree?.size !== 1 ||
        toHex(tree.root) !== expectedRoot ||
        toHex(appended.root) !== expectedRoot
      ) {
        throw new Error("the memory read back differs from the one written");
      }
      const [version] = await handle.sql<{ server_version: string }[]>`show server_version`;
      return `PostgreSQL ${version?.server_version} on port ${resolved.embedded.port}: memory written and read back, root ${expectedRoot}`;
    } finally {
      await handle.close();
    }
  } finally {
    await resolved.close();
  }
}

async function main(): Promise<void> {
  const timer = setTimeout(() => {
    console.log(`embedded-smoke: FAILED: timed out after ${TIMEOUT_MS} ms`);
    process.exit(1);
  }, TIMEOUT_MS);
  timer.unref();
  const dataDir = await mkdtemp(join(tmpdir(), "svc-smoke-"));
  // When run as root the server runs as `postgres`, which must reach DATA_DIR.
  await chmod(dataDir, 0o755);
  try {
    console.log(`embedded-smoke: ok (${await smoke(dataDir)})`);
  } catch (error) {
    console.log(
      `embedded-smoke: FAILED: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exitCode = 1;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
