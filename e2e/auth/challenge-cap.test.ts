/**
 * Outstanding sign-in challenges are capped (docs/protocol.md §2.1 "The challenge"): at
 * AUTH_CHALLENGE_MAX_OUTSTANDING unexpired challenges, core sign-in and the extension connect flow
 * together on one database, the next is 503 `challenges_exhausted` and nothing is stored; expired
 * challenges do not count. Real HTTP, real PostgreSQL, both APIs.
 */
import { call, newWallet, REDIRECT_URI } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CoreApp, type ExtensionApp, startCoreApi, startExtensionApi } from "../_apps.js";

let core: CoreApp;
let extension: ExtensionApp;
beforeAll(async () => {
  core = await startCoreApi({ env: { AUTH_CHALLENGE_MAX_OUTSTANDING: "4" } });
  extension = await startExtensionApi({
    databaseUrl: core.databaseUrl,
    clock: core.clock,
    env: { AUTH_CHALLENGE_MAX_OUTSTANDING: "4" },
  });
});
afterAll(async () => {
  await extension.close();
  await core.close();
});

const coreChallenge = () =>
  call<{ error?: { code: string } }>(`${core.url}/auth/challenge`, {
    body: { publicKey: newWallet().publicKey },
  });
const connectChallenge = () =>
  call<{ error?: { code: string } }>(`${extension.url}/connect/challenge`, {
    body: { publicKey: newWallet().publicKey, redirectUri: REDIRECT_URI },
  });
const stored = async () => (await core.sql`select 1 from sign_in_nonces`).length;

describe("AUTH_CHALLENGE_MAX_OUTSTANDING", () => {
  it("counts both flows together, refuses past the cap with 503 challenges_exhausted, and frees places as challenges expire", async () => {
    expect((await coreChallenge()).status).toBe(200);
    expect((await connectChallenge()).status).toBe(200);
    expect((await coreChallenge()).status).toBe(200);
    expect((await connectChallenge()).status).toBe(200);
    for (const refused of [await coreChallenge(), await connectChallenge()]) {
      expect(refused).toEqual({
        status: 503,
        body: { error: expect.objectContaining({ code: "challenges_exhausted" }) },
      });
    }
    expect(await stored()).toBe(4);
    core.clock.advance(5 * 60_000);
    expect((await coreChallenge()).status).toBe(200);
    expect((await connectChallenge()).status).toBe(200);
    expect(await stored()).toBe(6);
  });
});
