/**
 * Concurrent event streams per credential (docs/protocol.md §4.8 "Events"): at most
 * SSE_MAX_STREAMS_PER_CREDENTIAL open `GET /events` streams per credential in one process, counted
 * as the rate limits count credentials (a wallet's sessions together, each API key apart), over
 * real HTTP; past it 429 `too_many_streams`, and a closed stream frees its place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeStreams, openEvents } from "./_events.js";
import { mintApiKey, newUser, signIn, startTestApp, type TestApp } from "./helpers.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { SSE_MAX_STREAMS_PER_CREDENTIAL: "3" } });
});
afterAll(async () => {
  closeStreams();
  await t.close();
});

async function refusal(headers: Record<string, string>) {
  const res = await fetch(`${t.url}/events`, { headers });
  return { status: res.status, body: (await res.json()) as { error: { code: string } } };
}

describe("SSE_MAX_STREAMS_PER_CREDENTIAL", () => {
  it("admits 3 streams of a wallet's sessions together, refuses the 4th, and admits again once one closes", async () => {
    const user = await newUser(t.url);
    const second = await signIn(t.url, user.wallet);
    const secondHeaders = { authorization: `Bearer ${second.token}` };
    const open = [
      await openEvents(t.url, user.headers),
      await openEvents(t.url, user.headers),
      await openEvents(t.url, secondHeaders),
    ];
    for (const headers of [user.headers, secondHeaders]) {
      expect(await refusal(headers)).toEqual({
        status: 429,
        body: { error: expect.objectContaining({ code: "too_many_streams" }) },
      });
    }
    const key = await mintApiKey(t.url, user.token);
    const byKey = await openEvents(t.url, { authorization: `Bearer ${key}` });
    expect(byKey.position).toBeGreaterThanOrEqual(0);
    open[0]?.stream.close();
    const deadline = Date.now() + 10_000;
    let status = 429;
    while (status === 429 && Date.now() < deadline) {
      const controller = new AbortController();
      const res = await fetch(`${t.url}/events`, {
        headers: user.headers,
        signal: controller.signal,
      });
      status = res.status;
      controller.abort();
    }
    expect(status).toBe(200);
  });

  it("another wallet has its own count", async () => {
    const other = await newUser(t.url);
    for (let i = 0; i < 3; i++) {
      await openEvents(t.url, other.headers);
    }
    expect((await refusal(other.headers)).status).toBe(429);
  });
});
