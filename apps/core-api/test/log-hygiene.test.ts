/**
 * Log hygiene (docs/protocol.md §1.5 "Request ids"): a real core-api writing its logs at
 * level `trace` into memory, driven through sign-in, key minting, memory writes and searches and
 * an internal error. Every line is JSON and request lines carry the request id; no line holds the
 * session JWT, the API key, a capability grant's token, the wallet signature, a memory's plaintext or metadata, the search
 * query, JWT_SECRET or MASTER_ENCRYPTION_KEY; an internal error is logged as name, message, stack
 * and code only.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newWallet, postJson, startTestApp, TEST_ENV, type TestApp } from "./helpers.js";

const PLAINTEXT = "Quokka-7f3e paperweight ledger: the vault code is 4411-zebra-orchid";
const QUERY = "4411-zebra-orchid";
const METADATA_VALUE = "metadata-secret-9c1d-heliotrope";

/** Every line the app logged, as written (one JSON document per line). */
const written: string[] = [];
const sink = new Writable({
  write(chunk: Buffer | string, _encoding, done) {
    written.push(String(chunk));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ logger: pino({ level: "trace" }, sink) });
});
afterAll(async () => {
  await t.close();
});

type LogLine = Record<string, unknown> & { level: number; msg?: string; requestId?: string };

function lines(): LogLine[] {
  return written
    .join("")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as LogLine);
}

describe("structured logs", () => {
  it("carry the request id and never a credential, a secret or plaintext", async () => {
    // Sign-in: challenge, wallet signature, JWT.
    const wallet = newWallet();
    const challenge = (await (
      await postJson(`${t.url}/auth/challenge`, { publicKey: wallet.publicKey })
    ).json()) as { message: string };
    const signature = wallet.sign(challenge.message);
    const verify = await postJson(`${t.url}/auth/verify`, {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature,
    });
    expect(verify.status).toBe(200);
    const { token: jwt } = (await verify.json()) as { token: string };
    const session = { authorization: `Bearer ${jwt}` };

    // An API key, minted with the session.
    const minted = await call<{ key: string }>(`${t.url}/keys`, {
      headers: session,
      body: { label: "log hygiene" },
    });
    expect(minted.status).toBe(201);
    const apiKey = minted.body.key;
    const agent = { authorization: `Bearer ${apiKey}`, "x-request-id": "hygiene-write-1" };

    // Writes, reads and searches with a distinctive plaintext.
    const written1 = await call<{ id: string }>(`${t.url}/memories`, {
      headers: agent,
      body: { content: PLAINTEXT, metadata: { topic: METADATA_VALUE } },
    });
    expect(written1.status).toBe(201);
    expect((await call(`${t.url}/memories/${written1.body.id}`, { headers: agent })).status).toBe(
      200,
    );
    expect((await call(`${t.url}/memories?limit=10`, { headers: agent })).status).toBe(200);
    const found = await call<{ items: { content: string }[] }>(`${t.url}/memories/search`, {
      headers: agent,
      body: { query: QUERY },
    });
    expect(found.status).toBe(200);
    expect(found.body.items.map((m) => m.content)).toEqual([PLAINTEXT]);

    // A capability grant: its token is in the URL path of every use.
    const grant = await call<{ token: string }>(`${t.url}/agent-cases`, {
      headers: agent,
      body: { operation: { type: "read_memories", memoryIds: [written1.body.id] } },
    });
    expect(grant.status).toBe(201);
    expect((await call(`${t.url}/agent-cases/${grant.body.token}`)).status).toBe(200);
    expect((await call(`${t.url}/agent-cases/${grant.body.token}`)).status).toBe(410);

    // Credentials that fail are not logged either.
    const wrongKey = await call(`${t.url}/memories`, {
      headers: { authorization: `Bearer ${apiKey}x` },
    });
    expect(wrongKey.status).toBe(401);

    // An internal error: the memories table loses a column under the running app, so the insert
    // fails in PostgreSQL (drizzle puts the bound parameters, metadata included, in its message).
    await t.sql.unsafe("alter table memories rename column metadata to metadata_gone");
    const broken = await call<{ error: { code: string; message: string } }>(`${t.url}/memories`, {
      headers: { ...agent, "x-request-id": "hygiene-broken-1" },
      body: { content: PLAINTEXT, metadata: { topic: METADATA_VALUE } },
    });
    expect(broken.status).toBe(500);
    expect(broken.body.error.code).toBe("internal");
    expect(broken.body.error.message).toContain("hygiene-broken-1");

    const logged = lines();
    expect(logged.length).toBeGreaterThan(8);

    // One line per request, each with its request id.
    const requests = logged.filter((line) => line.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const line of requests) {
      expect(line.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
    expect(requests.map((line) => line.requestId)).toContain("hygiene-write-1");

    // The internal error: request id, and only name, message, stack and code of the error.
    const failure = logged.find((line) => line.msg === "unhandled error");
    expect(failure).toBeDefined();
    expect(failure?.level).toBe(50);
    expect(failure?.requestId).toBe("hygiene-broken-1");
    const err = failure?.err as Record<string, unknown>;
    expect(Object.keys(err).sort()).toEqual(
      expect.arrayContaining(["message", "name", "stack"].sort()),
    );
    for (const key of Object.keys(err)) {
      expect(["type", "name", "message", "stack", "code"]).toContain(key);
    }
    expect(String(err.message)).toContain("metadata");
    expect(err.code).toBe("42703"); // undefined_column, from the driver error

    // Nothing secret anywhere in the output.
    const text = written.join("");
    const masterKey = Buffer.from(TEST_ENV.MASTER_ENCRYPTION_KEY, "base64");
    const forbidden: Record<string, string> = {
      jwt: jwt,
      "jwt signature part": jwt.split(".")[2] ?? jwt,
      "api key": apiKey,
      "grant token": grant.body.token,
      "wallet signature": signature,
      plaintext: PLAINTEXT,
      "search query": QUERY,
      "metadata value": METADATA_VALUE,
      JWT_SECRET: TEST_ENV.JWT_SECRET,
      "MASTER_ENCRYPTION_KEY (base64)": TEST_ENV.MASTER_ENCRYPTION_KEY,
      "MASTER_ENCRYPTION_KEY (hex)": masterKey.toString("hex"),
    };
    for (const [what, value] of Object.entries(forbidden)) {
      expect(text.includes(value), `${what} appears in the logs`).toBe(false);
    }
  });
});
