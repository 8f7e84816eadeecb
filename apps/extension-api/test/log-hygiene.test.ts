/**
 * Log hygiene of the extension API (docs/protocol.md §1.5 "Request ids"; extension tokens "never
 * logged"): a real extension API logging at level `trace` into memory, driven through connect,
 * ingest, recall, logout and refused credentials. Every request line carries its request id; no
 * line holds the extension token, the wallet signature, the connect state, a memory's plaintext,
 * metadata or the search query, or MASTER_ENCRYPTION_KEY.
 * @module
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  call,
  EXTENSION_TEST_ENV,
  newWallet,
  REDIRECT_URI,
  startExtensionApp,
  type TestExtensionApp,
} from "./helpers.js";

const PLAINTEXT = "Wombat-51c2 selection: the locker code is 9902-amber-falcon";
const QUERY = "9902-amber-falcon";
const METADATA_VALUE = "https://private.example/page-7d1e";
const STATE = "state-0b7e-marigold";

const written: string[] = [];
const sink = new Writable({
  write(chunk: Buffer | string, _encoding, done) {
    written.push(String(chunk));
    done();
  },
});

let t: TestExtensionApp;
beforeAll(async () => {
  t = await startExtensionApp({ logger: pino({ level: "trace" }, sink) });
});
afterAll(async () => {
  await t.close();
});

describe("extension API logs", () => {
  it("carry the request id and never a token, a signature or plaintext", async () => {
    const wallet = newWallet();
    const challenge = await call<{ message: string }>(`${t.url}/connect/challenge`, {
      body: { publicKey: wallet.publicKey, redirectUri: REDIRECT_URI },
    });
    const signature = wallet.sign(challenge.body.message);
    const page = await fetch(
      `${t.url}/connect?${new URLSearchParams({ redirect_uri: REDIRECT_URI, state: STATE })}`,
    );
    expect(page.status).toBe(200);
    const verified = await call<{ token: string }>(`${t.url}/connect/verify`, {
      headers: { "x-request-id": "ext-verify-1" },
      body: {
        publicKey: wallet.publicKey,
        message: challenge.body.message,
        signature,
        redirectUri: REDIRECT_URI,
        state: STATE,
      },
    });
    expect(verified.status).toBe(200);
    const token = verified.body.token;

    const stored = await call(`${t.url}/memories`, {
      headers: bearer(token),
      body: { content: PLAINTEXT, metadata: { url: METADATA_VALUE } },
    });
    expect(stored.status).toBe(201);
    const found = await call<{ items: unknown[] }>(`${t.url}/memories/search`, {
      headers: bearer(token),
      body: { query: QUERY },
    });
    expect(found.body.items).toHaveLength(1);
    expect((await call(`${t.url}/me`, { headers: bearer(`${token}x`) })).status).toBe(401);
    const out = await fetch(`${t.url}/auth/logout`, { method: "POST", headers: bearer(token) });
    expect(out.status).toBe(204);
    expect((await call(`${t.url}/me`, { headers: bearer(token) })).status).toBe(401);

    const logged = written
      .join("")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { msg?: string; requestId?: string; path?: string });
    const requests = logged.filter((line) => line.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const line of requests) {
      expect(line.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(line.path).not.toContain("?");
    }
    expect(requests.map((line) => line.requestId)).toContain("ext-verify-1");

    const text = written.join("");
    const masterKey = Buffer.from(EXTENSION_TEST_ENV.MASTER_ENCRYPTION_KEY as string, "base64");
    const forbidden: Record<string, string> = {
      "extension token": token,
      "wallet signature": signature,
      "connect state": STATE,
      plaintext: PLAINTEXT,
      "search query": QUERY,
      "metadata value": METADATA_VALUE,
      "MASTER_ENCRYPTION_KEY (base64)": EXTENSION_TEST_ENV.MASTER_ENCRYPTION_KEY as string,
      "MASTER_ENCRYPTION_KEY (hex)": masterKey.toString("hex"),
    };
    for (const [what, value] of Object.entries(forbidden)) {
      expect(text.includes(value), `${what} appears in the logs`).toBe(false);
    }
  });
});
