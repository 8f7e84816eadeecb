/**
 * The first `pnpm start` (scripts/lib/first-run.ts): the settings it writes follow PORT and
 * EXTENSION_PORT, and every file it generates lands under DATA_DIR, wherever the settings file is;
 * the log key is written once, LOG_ORIGIN pinned beside it (docs/protocol.md §13.1 "The log key").
 */
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { parseSignerKey } from "@verifiable-memory/signed-note";
import { afterEach, describe, expect, it } from "vitest";
import {
  authorityKeypairProblem,
  defaultLogOrigin,
  ensureLocalEnv,
  ensureLogKey,
} from "../lib/first-run.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) {
    await rm(dir, { recursive: true, force: true });
  }
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-first-run-"));
  made.push(dir);
  return dir;
}

describe("ensureLocalEnv", () => {
  it("follows PORT and EXTENSION_PORT, and records every port it was started with", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await ensureLocalEnv(envPath, {
      PORT: "38787",
      EXTENSION_PORT: "38788",
      ANCHOR_PORT: "38789",
      LOCAL_CHAIN_PORT: "38899",
    });
    const settings = parseEnv(await readFile(envPath, "utf8"));
    expect(settings).toMatchObject({
      PORT: "38787",
      EXTENSION_PORT: "38788",
      ANCHOR_PORT: "38789",
      LOCAL_CHAIN_PORT: "38899",
      SIWS_DOMAIN: "localhost:38787",
      SIWS_URI: "http://localhost:38787",
      PUBLIC_BASE_URL: "http://localhost:38787",
      EXTENSION_PUBLIC_URL: "http://localhost:38788",
      DATA_DIR: "./.data",
      AUTHORITY_KEYPAIR_PATH: "./.data/authority.json",
    });
    expect(statSync(envPath).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, ".data", "authority.json"))).toBe(true);
  });

  it("keeps the generated keypair under DATA_DIR, not beside the settings file", async () => {
    const dir = await scratch();
    const data = await scratch();
    const envPath = join(dir, "x.env");
    const said = await ensureLocalEnv(envPath, { DATA_DIR: data });
    const settings = parseEnv(await readFile(envPath, "utf8"));
    expect(settings.DATA_DIR).toBe(data);
    expect(settings.AUTHORITY_KEYPAIR_PATH).toBe(join(data, "authority.json"));
    expect(existsSync(join(data, "authority.json"))).toBe(true);
    expect(existsSync(join(dir, ".data"))).toBe(false);
    expect(said.join("\n")).toContain(join(data, "authority.json"));
    const keypair = JSON.parse(await readFile(join(data, "authority.json"), "utf8")) as number[];
    expect(keypair).toHaveLength(64);
  });

  it("records the default ports when none is set, and refuses a malformed one by name", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await ensureLocalEnv(envPath, { PORT: "" });
    expect(parseEnv(await readFile(envPath, "utf8"))).toMatchObject({
      PORT: "8787",
      EXTENSION_PORT: "8788",
      ANCHOR_PORT: "8789",
      LOCAL_CHAIN_PORT: "8899",
    });
    const other = join(await scratch(), ".env");
    for (const bad of ["0x10", "70000", "80a", "-1"]) {
      await expect(ensureLocalEnv(other, { ANCHOR_PORT: bad })).rejects.toThrow(
        /^ANCHOR_PORT must/,
      );
    }
    expect(existsSync(other)).toBe(false);
  });

  it("writes nothing when the settings file exists", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await ensureLocalEnv(envPath);
    const before = await readFile(envPath, "utf8");
    expect(await ensureLocalEnv(envPath, { PORT: "1" })).toEqual([]);
    expect(await readFile(envPath, "utf8")).toBe(before);
  });
});

describe("ensureLogKey", () => {
  it("pins LOG_ORIGIN from PUBLIC_BASE_URL and writes the log key under DATA_DIR, once", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await ensureLocalEnv(envPath, { PORT: "38787" });
    const said = await ensureLogKey(envPath);
    const settings = parseEnv(await readFile(envPath, "utf8"));
    expect(settings.LOG_ORIGIN).toBe("localhost:38787/tlog");
    expect(settings.LOG_SIGNING_KEY_PATH).toBe("./.data/log-signing.key");
    const keyPath = join(dir, ".data", "log-signing.key");
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const signer = parseSignerKey((await readFile(keyPath, "utf8")).trim());
    expect(signer.name).toBe("localhost:38787/tlog");
    expect(said.join("\n")).toContain(signer.vkey);
    const before = await readFile(envPath, "utf8");
    expect(await ensureLogKey(envPath)).toEqual([]);
    expect(await readFile(envPath, "utf8")).toBe(before);
  });

  it("upgrades a settings file without a log key, keeping a LOG_ORIGIN it sets", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await writeFile(
      envPath,
      "PUBLIC_BASE_URL=https://memory.example\nLOG_ORIGIN=memory.example/log",
    );
    await ensureLogKey(envPath);
    const settings = parseEnv(await readFile(envPath, "utf8"));
    expect(settings.PUBLIC_BASE_URL).toBe("https://memory.example");
    expect(settings.LOG_ORIGIN).toBe("memory.example/log");
    const keyPath = join(dir, ".data", "log-signing.key");
    expect(parseSignerKey((await readFile(keyPath, "utf8")).trim()).name).toBe(
      "memory.example/log",
    );
  });

  it("never replaces a key: an environment that sets the path writes nothing, an existing file stops it", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    await writeFile(envPath, "PUBLIC_BASE_URL=http://localhost:1\n");
    expect(await ensureLogKey(envPath, { LOG_SIGNING_KEY_PATH: "/elsewhere.key" })).toEqual([]);
    await mkdir(join(dir, ".data"));
    await writeFile(join(dir, ".data", "log-signing.key"), "old");
    await expect(ensureLogKey(envPath)).rejects.toThrow(/EEXIST/);
    expect(await readFile(join(dir, ".data", "log-signing.key"), "utf8")).toBe("old");
    expect(defaultLogOrigin("http://[::1]:8787/base")).toBe("[::1]:8787/tlog");
  });
});

describe("authorityKeypairProblem", () => {
  it("names the setting to fix, where it was read and how to make a keypair", async () => {
    const dir = await scratch();
    const envPath = join(dir, ".env");
    const missing = join(dir, "keys", "gone.json");
    const problem = authorityKeypairProblem("./keys/gone.json", missing, envPath);
    expect(problem).toContain("AUTHORITY_KEYPAIR_PATH=./keys/gone.json");
    expect(problem).toContain(envPath);
    expect(problem).toContain(`does not exist`);
    expect(problem).toContain(`svc keygen --out ${missing}`);
    expect(problem).not.toMatch(/ENOENT/);
    await ensureLocalEnv(envPath);
    const made = join(dir, ".data", "authority.json");
    expect(authorityKeypairProblem("./.data/authority.json", made, envPath)).toBeNull();
  });
});
