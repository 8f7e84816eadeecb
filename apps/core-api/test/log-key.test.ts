/**
 * The log key on core-api (docs/protocol.md §13.1 "The log key", §13.3 "User checkpoints"):
 * `GET /info` shows the verifier keys (current and previous); `GET /owners/{owner}/checkpoint`
 * serves the latest anchored checkpoint as a signed note, checked here with node:crypto's Ed25519
 * (not the @noble code that signed it) and against the tree's own root; the configuration refuses
 * a half-configured or misnamed key, naming the variable.
 */
import { createHash, createPublicKey, verify } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { rootFromLeafHashes } from "@verifiable-memory/merkle-log";
import { generateSigner, openCheckpoint, parseVerifierKey } from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/env.js";
import {
  callAt,
  newUser,
  recordCheckpoint,
  startTestApp,
  TEST_ENV,
  type TestApp,
} from "./helpers.js";

const ORIGIN = "localhost:8787/tlog";
let dir: string;
let t: TestApp;
const current = generateSigner(ORIGIN);
const previous = generateSigner(ORIGIN);
let keyPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "core-log-key-"));
  keyPath = join(dir, "log-signing.key");
  await writeFile(keyPath, `${current.skey}\n`);
  t = await startTestApp({
    env: {
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY_PATH: keyPath,
      LOG_SIGNING_KEYS_PREVIOUS: ` ${previous.vkey} `,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Verifies a note's one signature with node:crypto against the raw 32-byte key of `vkey`. */
function verifiesWithNodeCrypto(note: string, vkey: string): boolean {
  const split = note.lastIndexOf("\n\n");
  const text = note.slice(0, split + 1);
  const [, name, sigBase64] = /^\u2014 (\S+) (\S+)\n$/u.exec(note.slice(split + 2)) ?? [];
  // The name and the id hold no "+", the base64 key may.
  const [, vName, idHex, keyBase64] = /^([^+]+)\+([^+]+)\+(.+)$/.exec(vkey) ?? [];
  const typedKey = Buffer.from(keyBase64 as string, "base64");
  const id = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${vName}\n`), typedKey]))
    .digest()
    .subarray(0, 4);
  const sig = Buffer.from(sigBase64 as string, "base64");
  if (name !== vName || id.toString("hex") !== idHex || !sig.subarray(0, 4).equals(id)) {
    return false;
  }
  const spki = Buffer.concat([
    Buffer.from("302a300506032b6570032100", "hex"),
    typedKey.subarray(1),
  ]);
  const key = createPublicKey({ key: spki, format: "der", type: "spki" });
  return verify(null, Buffer.from(text), key, sig.subarray(4));
}

describe("GET /info with a log key", () => {
  it("shows the current verifier key and the previous ones", async () => {
    const res = await callAt<{ logKey: string; logKeys: string[] }>(t.app, "/info");
    expect(res.status).toBe(200);
    expect(res.body.logKey).toBe(current.vkey);
    expect(res.body.logKeys).toEqual([current.vkey, previous.vkey]);
    expect(parseVerifierKey(res.body.logKey).publicKey).toEqual(current.publicKey);
  });

  it("shows no key when the process has none", () => {
    expect(loadConfig(TEST_ENV).logKey).toBeNull();
  });
});

describe("GET /owners/{owner}/checkpoint", () => {
  it("serves the latest anchored checkpoint signed by the log key, to anyone", async () => {
    const user = await newUser(t.app);
    const owner = user.wallet.publicKey;
    const path = `/owners/${owner}/checkpoint`;
    const never = await t.app.request(path);
    expect(never.status).toBe(404);
    expect(((await never.json()) as { error: { code: string } }).error.code).toBe("not_found");

    for (let i = 0; i < 5; i++) {
      await callAt(t.app, "/memories", { headers: user.headers, body: { content: `m ${i}` } });
    }
    await recordCheckpoint(t, user, 3, 1);
    await recordCheckpoint(t, user, 5, 2);
    const res = await t.app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const note = await res.text();
    const leaves = (
      await t.sql<{ leaf_hash: Buffer }[]>`
        select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`
    ).map((r) => new Uint8Array(r.leaf_hash));
    const root = Buffer.from(rootFromLeafHashes(leaves)).toString("base64");
    expect(note.split("\n\n")[0]).toBe(`${ORIGIN}/users/${owner}\n5\n${root}`);
    expect(verifiesWithNodeCrypto(note, current.vkey)).toBe(true);
    expect(verifiesWithNodeCrypto(note.replace("\n5\n", "\n4\n"), current.vkey)).toBe(false);
    expect(verifiesWithNodeCrypto(note, previous.vkey)).toBe(false);
    const opened = openCheckpoint(
      note,
      [parseVerifierKey(current.vkey)],
      `${ORIGIN}/users/${owner}`,
    );
    expect(opened.checkpoint.size).toBe(5);
    expect(await (await t.app.request(path)).text()).toBe(note);
  });

  it("answers 404 for an unknown owner and 400 for a malformed one or a query", async () => {
    expect(
      (await t.app.request(`/owners/${Keypair.generate().publicKey.toBase58()}/checkpoint`)).status,
    ).toBe(404);
    expect((await t.app.request("/owners/not-base58!/checkpoint")).status).toBe(400);
    expect(
      (await t.app.request(`/owners/${Keypair.generate().publicKey.toBase58()}/checkpoint?x=1`))
        .status,
    ).toBe(400);
  });
});

describe("the log key's configuration", () => {
  const variables = (env: Record<string, string>): readonly string[] => {
    try {
      loadConfig({ ...TEST_ENV, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).variables;
    }
    return [];
  };

  it("refuses half a key, a misnamed key, a missing file and a malformed previous key", async () => {
    expect(variables({ LOG_ORIGIN: ORIGIN })).toEqual(["LOG_SIGNING_KEY_PATH"]);
    expect(variables({ LOG_SIGNING_KEY_PATH: keyPath })).toEqual(["LOG_ORIGIN"]);
    expect(variables({ LOG_ORIGIN: "other.example/tlog", LOG_SIGNING_KEY_PATH: keyPath })).toEqual([
      "LOG_SIGNING_KEY_PATH",
    ]);
    expect(variables({ LOG_ORIGIN: "a b", LOG_SIGNING_KEY_PATH: keyPath })).toContain("LOG_ORIGIN");
    expect(
      variables({ LOG_ORIGIN: ORIGIN, LOG_SIGNING_KEY_PATH: join(dir, "missing.key") }),
    ).toEqual(["LOG_SIGNING_KEY_PATH"]);
    const bad = join(dir, "bad.key");
    await writeFile(bad, current.vkey);
    expect(variables({ LOG_ORIGIN: ORIGIN, LOG_SIGNING_KEY_PATH: bad })).toEqual([
      "LOG_SIGNING_KEY_PATH",
    ]);
    expect(
      variables({
        LOG_ORIGIN: ORIGIN,
        LOG_SIGNING_KEY_PATH: keyPath,
        LOG_SIGNING_KEYS_PREVIOUS: `${previous.vkey},nope`,
      }),
    ).toEqual(["LOG_SIGNING_KEYS_PREVIOUS"]);
    expect(variables({ LOG_SIGNING_KEYS_PREVIOUS: previous.vkey })).toEqual([
      "LOG_SIGNING_KEYS_PREVIOUS",
    ]);
  });
});
