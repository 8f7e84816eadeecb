/**
 * Master-key rotation end to end, with real PostgreSQL and real AES-256-GCM (docs/operations.md
 * "Rotating the master key"): users signed in under the old key (one of them with a version-1
 * wrap from before key ids); core-api and extension-api refuse to start, naming the old key id,
 * with only the new key or with a wrong one; restarted with the new key as current and the old as
 * previous, the app keeps writing and reading while every data key is re-wrapped in batches
 * (writes launched at every batch boundary, so they overlap the next batch); every memory still
 * decrypts; with the old key removed everything still reads. Then `pnpm rotate-master-key` itself
 * (the real script, settings from ENV_FILE) rotates to a third key beside the running app, a
 * rerun writes nothing, and the second key can go too.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countUsersByMasterKeyId, getUserById } from "@verifiable-memory/db-schema";
import { masterKeyId, parseMasterKey } from "@verifiable-memory/envelope-crypto";
import { checkMasterKeys, MissingMasterKeyError, rotateDataKeys } from "@verifiable-memory/memory";
import { wrapVersionOneDataKey } from "@verifiable-memory/memory/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";
import { call, newUser, startTestApp, TEST_ENV, type TestApp, type TestUser } from "./helpers.js";

const OLD = randomBytes(32).toString("base64");
const NEW = randomBytes(32).toString("hex");
const THIRD = randomBytes(32).toString("base64url");
const WRONG = randomBytes(32).toString("base64");
const oldId = masterKeyId(parseMasterKey(OLD));
const newId = masterKeyId(parseMasterKey(NEW));
const thirdId = masterKeyId(parseMasterKey(THIRD));

const root = fileURLToPath(new URL("../../../", import.meta.url));
const USERS = 30;

let before: TestApp;
const apps: TestApp[] = [];
let workDir: string;
const users: TestUser[] = [];
/** Every memory written: its owner and its content. */
const written = new Map<string, { user: TestUser; content: string }>();

beforeAll(async () => {
  before = await startTestApp({ env: { MASTER_ENCRYPTION_KEY: OLD } });
  workDir = await mkdtemp(join(tmpdir(), "key-rotation-"));
});
afterAll(async () => {
  for (const app of apps) {
    await app.close();
  }
  await before?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** The same database under another configuration, as after a restart. */
async function restart(env: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp({ shareDatabaseOf: before, env });
  apps.push(app);
  return app;
}

async function write(t: TestApp, user: TestUser, content: string): Promise<void> {
  const res = await call<{ id: string }>(`${t.url}/memories`, {
    headers: user.headers,
    body: { content },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  written.set(res.body.id, { user, content });
}

/** Reads every memory written so far through `t` and checks its plaintext. */
async function expectAllRead(t: TestApp): Promise<void> {
  for (const [id, { user, content }] of written) {
    const res = await call<{ content: string }>(`${t.url}/memories/${id}`, {
      headers: user.headers,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.content).toBe(content);
  }
}

/** Runs a node entry point with `--import tsx`; resolves with its exit code and output. */
function run(
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, entry), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `pnpm rotate-master-key` as the root script runs it (current THIRD, previous NEW and OLD), its
 * settings in an ENV_FILE.
 */
async function rotateWithScript(): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
}> {
  const envFile = join(workDir, "rotation.env");
  await writeFile(
    envFile,
    `DATABASE_URL=${before.databaseUrl}\nMASTER_ENCRYPTION_KEY=${THIRD}\nMASTER_ENCRYPTION_KEYS_PREVIOUS=${NEW}, ${OLD}\n`,
  );
  return run("scripts/rotate-master-key.ts", ["--batch-size", "2"], { ENV_FILE: envFile });
}

/**
 * Keeps writing through `t`: `writers` users each write one memory after another until `stop()`
 * resolves, then a few more; resolves with the number of writes made before `stop` settled.
 */
async function writeUntil(
  t: TestApp,
  writers: readonly TestUser[],
  label: string,
  stop: Promise<unknown>,
): Promise<number> {
  let running = true;
  let count = 0;
  const loops = writers.map(async (user, i) => {
    for (let n = 0; running || n < 2; n++) {
      await write(t, user, `${label} by user ${i}, #${n}`);
      count++;
    }
  });
  await stop;
  const made = count;
  running = false;
  await Promise.all(loops);
  return made;
}

describe("master-key rotation", () => {
  it("before: data keys wrapped under the old key, one in the format from before key ids", async () => {
    for (let i = 0; i < USERS; i++) {
      users.push(await newUser(before.url));
    }
    // The first user's row as it was stored before wraps named their key (version 1).
    const first = users[0] as TestUser;
    const row = await getUserById(before.db, first.userId);
    const dataKey = before.config.masterKeys.unwrap(
      row?.wrappedDataKey as Uint8Array,
      first.userId,
    );
    const legacy = wrapVersionOneDataKey(parseMasterKey(OLD), dataKey, first.userId);
    await before.sql`update users set wrapped_data_key = ${Buffer.from(legacy)} where id = ${first.userId}`;
    for (const [i, user] of users.entries()) {
      await write(before, user, `written under the old key by user ${i}`);
    }
    expect(await countUsersByMasterKeyId(before.db)).toEqual([
      { masterKeyId: oldId, users: USERS - 1 },
      { masterKeyId: null, users: 1 },
    ]);
    await expectAllRead(before);
  });

  it("the new key alone, or a wrong key, stops core-api and extension-api at start naming the old key id", async () => {
    const onlyNew = loadConfig({ ...TEST_ENV, MASTER_ENCRYPTION_KEY: NEW }).masterKeys;
    const error = await checkMasterKeys(before.db, onlyNew).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingMasterKeyError);
    expect((error as Error).message).toContain(`master key id ${oldId} is not configured`);

    const database = { DATABASE_URL: before.databaseUrl };
    const [core, extension] = await Promise.all([
      run("apps/core-api/src/main.ts", [], {
        ...TEST_ENV,
        ...database,
        MASTER_ENCRYPTION_KEY: WRONG,
        PORT: "0",
      }),
      run("apps/extension-api/src/main.ts", [], {
        ...database,
        MASTER_ENCRYPTION_KEY: NEW,
        SIWS_CHAIN_ID: "devnet",
        SERVICE_NAME: "Verifiable Memory",
        EXTENSION_PORT: "0",
      }),
    ]);
    for (const { code, stdout, stderr } of [core, extension]) {
      expect(code, stdout + stderr).toBe(1);
      expect(stderr).toContain(`master key id ${oldId} is not configured; ${USERS - 1} users`);
      expect(stderr).toContain("wrapped before key ids");
      expect(stdout).not.toContain("listening");
    }
  });

  it("re-wraps every data key while the app writes and reads; every memory still decrypts", async () => {
    const during = await restart({
      MASTER_ENCRYPTION_KEY: NEW,
      MASTER_ENCRYPTION_KEYS_PREVIOUS: OLD,
    });
    await checkMasterKeys(during.db, during.config.masterKeys);
    await expectAllRead(during);

    // At every batch boundary each user writes once more: those writes run during the next batch,
    // some for users already re-wrapped, some for users not yet.
    const atBoundaries: Promise<void>[] = [];
    let boundary = 0;
    const rotation = rotateDataKeys(during.db, during.config.masterKeys, {
      batchSize: 3,
      onProgress: () => {
        boundary++;
        for (const [i, user] of users.entries()) {
          atBoundaries.push(write(during, user, `at batch boundary ${boundary} by user ${i}`));
        }
      },
    });
    // Meanwhile 8 users keep writing, and new users sign in (wrapped under the new key at once).
    const newcomers = (async () => {
      const joined: TestUser[] = [];
      for (let n = 0; n < 3; n++) {
        joined.push(await newUser(during.url));
      }
      return joined;
    })();
    const writesMeanwhile = await writeUntil(
      during,
      users.slice(0, 8),
      "during the rotation",
      rotation,
    );
    const result = await rotation;
    await Promise.all(atBoundaries);
    for (const user of await newcomers) {
      await write(during, user, "a newcomer during the rotation");
    }

    expect(result).toEqual({ masterKeyId: newId, rewrapped: USERS, skipped: 0, remaining: [] });
    expect(boundary).toBe(1 + USERS / 3);
    expect(writesMeanwhile).toBeGreaterThan(0);
    expect(await countUsersByMasterKeyId(during.db)).toEqual([
      { masterKeyId: newId, users: USERS + 3 },
    ]);
    await expectAllRead(during);
  });

  it("with the old key removed everything still reads; the old key alone now fails", async () => {
    const after = await restart({ MASTER_ENCRYPTION_KEY: NEW });
    await checkMasterKeys(after.db, after.config.masterKeys);
    await expectAllRead(after);
    const search = await call<{ items: { content: string }[] }>(`${after.url}/memories/search`, {
      headers: (users[0] as TestUser).headers,
      body: { query: "old key" },
    });
    expect(search.body.items.map((m) => m.content)).toEqual([
      "written under the old key by user 0",
    ]);
    const onlyOld = loadConfig({ ...TEST_ENV, MASTER_ENCRYPTION_KEY: OLD }).masterKeys;
    await expect(checkMasterKeys(after.db, onlyOld)).rejects.toThrow(
      `master key id ${newId} is not configured`,
    );
  });

  it("pnpm rotate-master-key rotates again beside the running app; a rerun is a no-op", async () => {
    const during = await restart({
      MASTER_ENCRYPTION_KEY: THIRD,
      MASTER_ENCRYPTION_KEYS_PREVIOUS: `${NEW},${OLD}`,
    });
    await checkMasterKeys(during.db, during.config.masterKeys);
    const script = rotateWithScript();
    await writeUntil(during, users.slice(0, 4), "during the scripted rotation", script);
    const rotation = await script;
    expect(rotation.code, rotation.stdout + rotation.stderr).toBe(0);
    expect(rotation.stdout).toContain(`current master key id: ${thirdId}`);
    expect(rotation.stdout).toContain(`previous master key ids: ${newId}, ${oldId}`);
    expect(rotation.stdout).toContain(`${USERS + 3} data keys to re-wrap`);
    expect(rotation.stdout).toMatch(new RegExp(`^2/${USERS + 3} data keys re-wrapped$`, "m"));
    expect(rotation.stdout).toContain(`re-wrapped ${USERS + 3} data keys under ${thirdId}`);
    expect(rotation.stdout).toContain("done: remove MASTER_ENCRYPTION_KEYS_PREVIOUS");
    await expectAllRead(during);

    const stored = await before.sql`select id, wrapped_data_key from users order by id`;
    const rerun = await rotateWithScript();
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(
      `every data key is already wrapped under ${thirdId}: nothing to do`,
    );
    expect(rerun.stdout).not.toContain("to re-wrap");
    expect(await before.sql`select id, wrapped_data_key from users order by id`).toEqual(stored);

    const after = await restart({ MASTER_ENCRYPTION_KEY: THIRD });
    await checkMasterKeys(after.db, after.config.masterKeys);
    await expectAllRead(after);
  });
});
