/**
 * `GET /info`: public, and names what an auditor pins (cluster, program id, anchoring authority
 * from AUTHORITY_KEYPAIR_PATH, leaf-encoding versions); an unreadable keypair file stops the
 * config naming the variable.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/env.js";
import { callAt, startTestApp, TEST_ENV, type TestApp } from "./helpers.js";

let dir: string;
let t: TestApp;
const authority = Keypair.generate();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "core-info-"));
  const path = join(dir, "authority.json");
  await writeFile(path, JSON.stringify([...authority.secretKey]));
  t = await startTestApp({ env: { AUTHORITY_KEYPAIR_PATH: path, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("GET /info", () => {
  it("answers without a credential with the deployment's anchoring parameters", async () => {
    const res = await callAt(t.app, "/info");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      service: TEST_ENV.SERVICE_NAME,
      cluster: "localnet",
      programId: t.config.programId,
      anchorAuthority: authority.publicKey.toBase58(),
      leafEncodingVersions: [1, 2],
      merkleTree: "RFC 9162 (SHA-256; leaf 0x00, node 0x01)",
      siws: { domain: TEST_ENV.SIWS_DOMAIN, uri: TEST_ENV.SIWS_URI },
      logKey: null,
      logKeys: [],
    });
  });

  it("says null for the authority when the process has no keypair, and refuses unknown query", async () => {
    expect(loadConfig(TEST_ENV).anchorAuthority).toBeNull();
    const res = await callAt<{ error: { code: string } }>(t.app, "/info?x=1");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
  });

  it("stops the config naming AUTHORITY_KEYPAIR_PATH when the file is unreadable", () => {
    expect(() =>
      loadConfig({ ...TEST_ENV, AUTHORITY_KEYPAIR_PATH: join(dir, "missing.json") }),
    ).toThrow(ConfigError);
    try {
      loadConfig({ ...TEST_ENV, AUTHORITY_KEYPAIR_PATH: join(dir, "missing.json") });
    } catch (error) {
      expect((error as ConfigError).variables).toEqual(["AUTHORITY_KEYPAIR_PATH"]);
    }
  });
});
