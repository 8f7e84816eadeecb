/**
 * The web console in Chromium against the real service (test/harness.ts: core-api and the anchor
 * service as processes, real PostgreSQL, the real program on the local chain): served at
 * `/console` with its Content-Security-Policy on every path; sign-in with a Wallet Standard wallet
 * injected by the test (`solana:signIn`); memories written through the API found by search;
 * a proof verified in the page from the chain, then refused with its reason when the chain read
 * returns a changed account (a proxy flips a byte); an old proof stale until the API's
 * consistency proof bridges it; an API key created and revoked; staking signed with
 * `solana:signTransaction`; the event stream read with the token in a header; every page
 * screenshotted to `.ci/artifacts/console/`, scanned by axe-core (no serious or critical
 * violation), and used from the keyboard; nothing loaded from another origin, nothing refused by
 * the CSP; an expired session returns to sign-in.
 * @module
 */
import { readFile } from "node:fs/promises";
import { createClient, type ProofBundle, type SvcClient } from "@verifiable-memory/client";
import { requestAirdrop } from "@verifiable-memory/litesvm-rpc";
import { newSolanaKeypair, type SolanaKeypair } from "@verifiable-memory/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureConsoleBuilt, firstLoadReport } from "../build/freshness.js";
import {
  haveChromium,
  launch,
  screenshot,
  seriousViolations,
  type WatchedPage,
  watchedPage,
} from "./browser.js";
import { type Service, startService } from "./harness.js";
import { injectTestWallet } from "./test-wallet.js";

let service: Service;
let browser: Browser;
let watched: WatchedPage;
let page: Page;
let key: SolanaKeypair;
let api: SvcClient;
let signedMessages: string[];
/** The memory the tests search for, open and prove. */
let needle: string;
/** Its proof as fetched before later anchors (stale later). */
let oldBundle: ProofBundle;

/** `expect.poll` with room for a loaded machine (the default gives up after 1 s). */
function poll<T>(read: () => Promise<T> | T) {
  return expect.poll(read, { timeout: 30_000, interval: 200 });
}

/** Waits until the user's log is anchored at `size` or more (the anchor service runs every 0.5 s). */
async function anchoredAt(size: number): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const head = await api.log.get();
    if ((head.anchored?.treeSize ?? 0) >= size) {
      return;
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`not anchored at ${size} within 90 s`);
}

/** Goes to the console route `route` (e.g. `/log`) and waits for its main heading. */
async function open(route: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${service.apiUrl}/console/#${route}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

beforeAll(async () => {
  if (!haveChromium) {
    return;
  }
  await ensureConsoleBuilt();
  service = await startService();
  browser = await launch();
  key = newSolanaKeypair();
  await requestAirdrop(service.chainUrl, key.address, 5e9);
  watched = await watchedPage(browser, [
    new URL(service.apiUrl).origin,
    new URL(service.proxy.url).origin,
  ]);
  page = watched.page;
  signedMessages = await injectTestWallet(page, key);
  api = createClient({ baseUrl: service.apiUrl, retry: false });
  await api.signInWithKeypair(key.secretKey);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe.skipIf(!haveChromium)("the web console", () => {
  it("is served at /console on every path with its Content-Security-Policy, within its first-load budget", async () => {
    const policy =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
      `connect-src 'self' ${new URL(service.proxy.url).origin}; frame-ancestors 'none'`;
    for (const path of [
      "/console",
      "/console/",
      "/console/memories/abc?x=1&y",
      "/console/?api=x",
    ]) {
      const res = await fetch(`${service.apiUrl}${path}`);
      expect([path, res.status, res.headers.get("content-security-policy")]).toEqual([
        path,
        200,
        policy,
      ]);
      const html = await res.text();
      expect(html).toContain('src="/console/assets/');
      expect(html).not.toContain('"./');
    }
    const config = await (await fetch(`${service.apiUrl}/console/config.json`)).json();
    expect(config).toEqual({ apiUrl: "../", chainRpcUrl: service.proxy.url });
    const report = firstLoadReport();
    expect(report.gzipBytes).toBeLessThanOrEqual(250 * 1024);
    const script = await fetch(`${service.apiUrl}/console/${report.files[0]}`);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(script.headers.get("cache-control")).toContain("immutable");
  });

  it("signs in with a Wallet Standard wallet (solana:signIn) for the console's host; the development wallet is offered on localnet", async () => {
    await page.goto(`${service.apiUrl}/console/`);
    await page.getByRole("heading", { name: "Development wallet" }).waitFor();
    await screenshot(page, "sign-in");
    await page.getByRole("button", { name: "Sign in with Test Wallet" }).click();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    expect(signedMessages).toHaveLength(1);
    expect(signedMessages[0]?.split("\n")[0]).toBe(
      `${new URL(service.apiUrl).host} wants you to sign in with your Solana account:`,
    );
    const stored = await page.evaluate(() => sessionStorage.getItem("vm-console.session"));
    expect(JSON.parse(stored ?? "{}")).toMatchObject({ kind: "session", publicKey: key.address });
  });

  it("finds memories written through the API, by words, metadata operators and namespace", async () => {
    const written = await api.rememberMany([
      { content: "The invoice is due in March", metadata: { topic: "billing", n: 1 } },
      {
        content: "A needle in the haystack of memories",
        metadata: { topic: "search", n: 3 },
        namespace: "agent:research",
      },
      { content: "The customer prefers French", metadata: { topic: "prefs", n: 5 } },
    ]);
    needle = written[1]?.id as string;
    await page.getByRole("button", { name: "Clear" }).click();
    await poll(() => page.locator(".memory-row").count()).toBe(3);
    await page.getByRole("searchbox", { name: "Search" }).fill("needle");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await poll(() => page.locator(".memory-row").count()).toBe(1);
    await page.getByText("A needle in the haystack").waitFor();

    await page.getByRole("searchbox", { name: "Search" }).fill("");
    await page.getByText("Filters").click();
    await page.getByRole("button", { name: "Add a metadata condition" }).click();
    await page.getByRole("textbox", { name: "Metadata key 1" }).fill("n");
    await page.getByRole("combobox", { name: "Operator 1" }).selectOption("$gte");
    await page.getByRole("textbox", { name: "Value 1" }).fill("3");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await poll(() => page.locator(".memory-row").count()).toBe(2);
    await page.getByRole("combobox", { name: "Namespace" }).fill("agent:research");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await poll(() => page.locator(".memory-row").count()).toBe(1);
    await screenshot(page, "memories");
    await page.getByRole("button", { name: "Clear" }).click();
    await poll(() => page.locator(".memory-row").count()).toBe(3);
  });

  it("opens a memory and its proof, verified in the page against the account read from the chain", async () => {
    await anchoredAt(3);
    await page.getByRole("link", { name: /A needle in the haystack/ }).click();
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    await page.getByText("agent:research").first().waitFor();
    await screenshot(page, "memory");
    await page.getByRole("button", { name: "Check its proof" }).click();
    const verdict = page.getByTestId("verdict");
    await poll(() => verdict.textContent()).toBe("Verified against the chain.");
    for (const check of [
      "leaf",
      "content",
      "account",
      "chain",
      "authority",
      "checkpoint",
      "inclusion",
    ]) {
      expect(await page.locator(`.check-passed [data-testid="check-${check}"]`).count()).toBe(1);
    }
    await page.getByText(/Root reached equals the root read from the chain/).waitFor();
    await screenshot(page, "proof");
    oldBundle = await api.prove(needle);
  });

  it("fails with its reason when the chain read returns a changed account", async () => {
    service.proxy.flip = true;
    try {
      await page.getByRole("button", { name: "Fetch a fresh proof" }).click();
      const verdict = page.getByTestId("verdict");
      await poll(() => verdict.textContent()).toBe("Not verified: checkpoint_mismatch.");
      expect(
        await page.locator('.check-failed [data-testid="check-checkpoint"]').textContent(),
      ).toMatch(/is not the on-chain commitment/);
      await screenshot(page, "proof-refused");
    } finally {
      service.proxy.flip = false;
    }
  });

  it("shows an old proof as stale until the API's consistency proof bridges it", async () => {
    await api.remember("written after the proof was saved");
    await anchoredAt(4);
    await open("/verify", "Verify a saved proof");
    await page.getByLabel("Proof bundle file").setInputFiles({
      name: "old-proof.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(oldBundle)),
    });
    const verdict = page.getByTestId("verdict");
    await poll(() => verdict.textContent()).toBe(
      "Stale: a newer root needs the API's consistency proof.",
    );
    await screenshot(page, "verify-stale");
    await page.getByRole("button", { name: "Fetch the consistency proof from the API" }).click();
    await poll(() => verdict.textContent()).toBe("Verified against the chain.");
    expect(await page.locator('.check-passed [data-testid="check-consistency"]').count()).toBe(1);
    await screenshot(page, "verify-bridged");
  });

  it("creates an API key with scopes, namespace and expiry, shows its secret once, and revokes it", async () => {
    await open("/keys", "API keys");
    await page.getByRole("textbox", { name: "Label" }).fill("research agent");
    await page.getByRole("checkbox", { name: "memories:delete" }).uncheck();
    await page.getByRole("textbox", { name: /Confine to namespace prefix/ }).fill("agent:");
    await page.getByRole("button", { name: "Create the key" }).click();
    const secret = (await page.getByTestId("new-key").textContent()) ?? "";
    expect(secret).toMatch(/^svc_[0-9a-f]{48}$/);
    await screenshot(page, "keys");
    const withKey = createClient({ baseUrl: service.apiUrl, apiKey: secret, retry: false });
    expect((await withKey.log.get()).treeSize).toBe(4);
    await page.getByRole("button", { name: "I have stored it" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke research agent" }).click();
    await page.getByText(/^revoked /).waitFor();
    await expect(withKey.log.get()).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("shows the log, namespaces, live activity (token in a header, never a URL), shares, staking and export", async () => {
    await open("/log", "Log");
    expect(await page.getByTestId("anchored-size").textContent()).toMatch(/^4 leaves/);
    await page.locator(".log-chart canvas").first().waitFor();
    await screenshot(page, "log");

    await open("/namespaces", "Namespaces");
    await page.getByRole("link", { name: "agent:research" }).waitFor();
    await screenshot(page, "namespaces");

    const eventRequests: { url: string; authorization: string | null }[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/events") {
        eventRequests.push({
          url: request.url(),
          authorization: request.headers().authorization ?? null,
        });
      }
    });
    await open("/activity", "Live activity");
    await page.getByText("Connected: new events appear as they happen.").waitFor();
    await api.remember("seen live by the console");
    await page.locator('[data-event-type="memory.created"]').first().waitFor({ timeout: 30_000 });
    await screenshot(page, "activity");
    expect(eventRequests.length).toBeGreaterThan(0);
    for (const request of eventRequests) {
      expect(new URL(request.url).search).toBe("");
      expect(request.authorization).toMatch(/^Bearer /);
    }

    await open("/shares", "Shares");
    await page.getByRole("radio", { name: "Run a search" }).check();
    await page.getByRole("textbox", { name: "Search" }).fill("needle");
    await page.getByRole("button", { name: "Create the share" }).click();
    const shareUrl = (await page.getByTestId("share-url").textContent()) ?? "";
    expect(shareUrl).toMatch(/\/agent-cases\/[1-9A-HJ-NP-Za-km-z]+$/);
    await screenshot(page, "shares");

    await open("/staking", "Staking");
    await page.getByTestId("staked").waitFor();
    await page.getByRole("textbox", { name: "Amount (SOL)" }).fill("1.5");
    await page.getByRole("button", { name: "Stake", exact: true }).click();
    await page.getByText(/^Confirmed in slot \d+/).waitFor({ timeout: 60_000 });
    await poll(() => page.getByTestId("staked").textContent()).toBe("1.5 SOL");
    await screenshot(page, "staking");

    await open("/export", "Export");
    const download = page.waitForEvent("download", { timeout: 60_000 });
    await page.getByRole("button", { name: "Export all memories with proofs" }).click();
    const file = JSON.parse(await readFile((await (await download).path()) as string, "utf8")) as {
      memories: { id: string; proof: { memoryId: string; content: string } }[];
    };
    expect(file.memories).toHaveLength(5);
    for (const memory of file.memories) {
      expect(memory.proof.memoryId).toBe(memory.id);
    }
    await screenshot(page, "export");

    await open("/settings", "Settings");
    await screenshot(page, "settings");
  });

  it("has no serious or critical accessibility violation on any page (axe-core)", async () => {
    const pages: [string, string | RegExp][] = [
      ["/", "Memories"],
      [`/memories/${needle}`, "Memory"],
      [`/memories/${needle}/proof`, "Proof of a memory"],
      ["/namespaces", "Namespaces"],
      ["/log", "Log"],
      ["/activity", "Live activity"],
      ["/keys", "API keys"],
      ["/shares", "Shares"],
      ["/staking", "Staking"],
      ["/export", "Export"],
      ["/verify", "Verify a saved proof"],
      ["/settings", "Settings"],
    ];
    const found: Record<string, unknown> = {};
    for (const [route, heading] of pages) {
      await open(route, heading);
      await page.waitForLoadState("networkidle").catch(() => undefined);
      const violations = await seriousViolations(page);
      if (violations.length > 0) {
        found[route] = violations;
      }
    }
    expect(found).toEqual({});
  });

  it("works from the keyboard: skip link, focus on each new page, search, open a result", async () => {
    await open("/", "Memories");
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe(
      "query",
    );
    await page.keyboard.type("needle");
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".memory-row").count()).toBe(1);
    await page.locator(".memory-link").first().focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
    // A navigation puts the focus on the new page, so the next Tab is inside it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true);
  });

  it("loaded nothing from another origin and nothing was refused by the Content-Security-Policy", () => {
    expect(watched.foreign).toEqual([]);
    expect(watched.problems).toEqual([]);
  });

  it("returns to sign-in when the session expires, and signs out on request", async () => {
    await open("/", "Memories");
    await page.evaluate(() => {
      const session = JSON.parse(sessionStorage.getItem("vm-console.session") ?? "{}");
      session.expiresAt = new Date(Date.now() + 1500).toISOString();
      sessionStorage.setItem("vm-console.session", JSON.stringify(session));
    });
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    await page.getByText("Your session expired (sessions last one hour). Sign in again.").waitFor({
      timeout: 10_000,
    });
    expect(await page.evaluate(() => sessionStorage.getItem("vm-console.session"))).toBeNull();
    await page.getByRole("button", { name: "Sign in with Test Wallet" }).click();
    await page.getByRole("heading", { level: 1, name: "Memories" }).waitFor();
    await page.getByRole("button", { name: /^Sign out/ }).click();
    await page.getByText("You signed out.").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("vm-console.session"))).toBeNull();
  });
});
