/**
 * The whole extension flow in real headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core; nothing downloads a browser): the built extension loaded unpacked; the connect
 * page with a Wallet Standard wallet backed by a real ed25519 key (`solana:signIn` and
 * `solana:signMessage` paths, no wallet, a refused signature, a choice of two); the token reaching
 * the extension; "Remember selection" from a test page; recall through the popup; the memory in
 * core-api's GET /memories, anchored by the anchor service's sweep on the local chain and verified
 * against the chain by @verifiable-memory/verifier (what svc-verify runs); logout, after which the token is 401.
 * Screenshots go to test-artifacts/ (git-ignored).
 * @module
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Keypair } from "@solana/web3.js";
import { runSweep } from "@verifiable-memory/anchor-service";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { call, signIn } from "@verifiable-memory/testkit";
import { verifyBundle } from "@verifiable-memory/verifier";
import pino from "pino";
import { type BrowserContext, chromium, type Page, type Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildExtension } from "../../apps/chrome-extension/build.js";
import { type CoreApp, type ExtensionApp, startCoreApi, startExtensionApi } from "../_apps.js";
import { installTestWallet, type TestWallet } from "./wallet.js";

const CHROMIUM = "/usr/bin/chromium";
/** The id the manifest's `key` gives the extension (README.md, docs/extension.md). */
const EXTENSION_ID = "pcdkbpcmdhaegllnfknldofchljdcoho";
const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts");
const ARTICLE_TEXT =
  "Merkle trees let anyone check that a memory belongs to a log without seeing the others.";

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) {
  throw new Error(
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
  );
}
if (!haveChromium) {
  console.warn(
    `\n  !! ${CHROMIUM} is missing: the browser tests are SKIPPED. apt-get install -y chromium\n`,
  );
}

let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let core: CoreApp;
let ext: ExtensionApp;
let article: Server;
let articleUrl: string;
let profileDir: string;
let extensionDir: string;
let context: BrowserContext;
let worker: Worker;
let extensionId: string;
let wallet: TestWallet;

/** Serves one small article page to select text from. */
async function serveArticle(): Promise<void> {
  article = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html><head><title>On Merkle trees</title></head><body><h1>On Merkle trees</h1><p id="quote">${ARTICLE_TEXT}</p><p>Other text.</p></body></html>`,
    );
  });
  await new Promise<void>((done) => article.listen(0, "127.0.0.1", done));
  articleUrl = `http://127.0.0.1:${(article.address() as AddressInfo).port}/article.html`;
}

beforeAll(async () => {
  if (!haveChromium) {
    return;
  }
  chainDir = await mkdtemp(join(tmpdir(), "svc-e2e-chain-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  core = await startCoreApi({ env: { CHAIN_RPC_URL: chain.url } });
  ext = await startExtensionApi({
    databaseUrl: core.databaseUrl,
    env: { CHAIN_RPC_URL: chain.url },
  });
  await serveArticle();
  await mkdir(ARTIFACTS, { recursive: true });
  extensionDir = await buildExtension(await mkdtemp(join(tmpdir(), "svc-extension-")));
  profileDir = await mkdtemp(join(tmpdir(), "svc-chromium-"));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
    ],
  });
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  extensionId = new URL(worker.url()).host;
  await worker.evaluate((url) => chrome.storage.local.set({ serviceUrl: url }), ext.url);
  wallet = await installTestWallet(context);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await new Promise<void>((done) => (article ? article.close(() => done()) : done()));
  await ext?.close();
  await core?.close();
  await chain?.close();
  for (const dir of [chainDir, profileDir, extensionDir]) {
    if (dir) {
      await rm(dir, { recursive: true, force: true });
    }
  }
});

/** The extension's popup, opened as a tab. */
async function openPopup(): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  return popup;
}

/** The token the extension keeps, read in its service worker. */
async function extensionToken(): Promise<string | null> {
  return worker.evaluate(async () => {
    const { token } = await chrome.storage.local.get("token");
    return (token as { token?: string } | undefined)?.token ?? null;
  });
}

/** Clicks "Connect wallet" in the popup and returns the connect page's tab. */
async function startConnect(popup: Page): Promise<Page> {
  const opened = context.waitForEvent("page");
  await popup.click("#connect");
  const page = await opened;
  await page.waitForLoadState("domcontentloaded");
  return page;
}

/** The connect page's `data-state` once it settles on one of `states`. */
async function settledState(page: Page, states: readonly string[]): Promise<string> {
  await page.waitForFunction(
    (wanted) => wanted.includes(document.getElementById("app")?.dataset.state ?? ""),
    states,
    { timeout: 15_000 },
  );
  return page.evaluate(() => document.getElementById("app")?.dataset.state ?? "");
}

/** Connects with the wallet in `mode` and waits for the extension's connected page. */
async function connectWith(mode: TestWallet["mode"]): Promise<Page> {
  wallet.mode = mode;
  const popup = await openPopup();
  const page = await startConnect(popup);
  await page.waitForURL(`chrome-extension://${extensionId}/connected.html`, { timeout: 15_000 });
  await page.waitForFunction(() => document.getElementById("app")?.dataset.state === "connected");
  await popup.close();
  return page;
}

/** A token for the test wallet through the extension API's JSON steps (no browser). */
async function connectDirectly(state: string): Promise<string> {
  const redirectUri = `chrome-extension://${extensionId}/connected.html`;
  const challenge = await call<{ message: string }>(`${ext.url}/connect/challenge`, {
    body: { publicKey: wallet.publicKey, redirectUri },
  });
  const verified = await call<{ token: string; redirectTo: string }>(`${ext.url}/connect/verify`, {
    body: {
      publicKey: wallet.publicKey,
      message: challenge.body.message,
      signature: wallet.sign(challenge.body.message),
      redirectUri,
      state,
    },
  });
  expect(verified.status).toBe(200);
  expect(verified.body.redirectTo).toBe(
    `${redirectUri}#token=${verified.body.token}&state=${state}`,
  );
  return verified.body.token;
}

describe.skipIf(!haveChromium)("the extension in Chromium", () => {
  it("loads with the stable id its manifest key gives, with its icons", async () => {
    expect(extensionId).toBe(EXTENSION_ID);
    const popup = await openPopup();
    const icons = await popup.evaluate(async () =>
      Promise.all(
        [16, 32, 48, 128].map(async (size) => {
          const res = await fetch(`/icons/icon-${size}.png`);
          return `${res.status} ${res.headers.get("content-type")}`;
        }),
      ),
    );
    expect(icons).toEqual(Array(4).fill("200 image/png"));
    await popup.close();
  });

  it("shows no wallet, a choice of wallets, and a refused signature clearly", async () => {
    wallet.mode = "none";
    const popup = await openPopup();
    const none = await startConnect(popup);
    expect(await settledState(none, ["no-wallet"])).toBe("no-wallet");
    expect(await none.textContent("#status")).toContain("No Solana wallet");
    await none.screenshot({ path: join(ARTIFACTS, "connect-page-no-wallet.png") });
    await none.close();

    wallet.mode = "two";
    const two = await startConnect(popup);
    expect(await settledState(two, ["choose-wallet"])).toBe("choose-wallet");
    expect(await two.locator("#wallets button").allTextContents()).toEqual([
      "Test Wallet A",
      "Test Wallet B",
    ]);
    await two.screenshot({ path: join(ARTIFACTS, "connect-page.png") });
    await two.close();

    wallet.mode = "refuse";
    const refused = await startConnect(popup);
    expect(await settledState(refused, ["refused"])).toBe("refused");
    expect(await refused.isVisible("#retry")).toBe(true);
    await refused.close();
    await popup.close();
    expect(await extensionToken()).toBeNull();
  });

  it("shows an expired challenge, and connects on retry", async () => {
    wallet.mode = "sign-message";
    let expired = false;
    // Before the first signature, move the extension API's clock past the challenge's
    // Expiration Time, as a user who waited too long in the wallet would.
    wallet.beforeSign = (message) => {
      const expiration = /^Expiration Time: (.+)$/m.exec(message)?.[1];
      if (!expired && expiration) {
        expired = true;
        ext.clock.advance(Date.parse(expiration) - ext.clock.now().getTime() + 1000);
      }
    };
    try {
      const popup = await openPopup();
      const page = await startConnect(popup);
      expect(await settledState(page, ["expired", "error", "success"])).toBe("expired");
      expect(await page.isVisible("#retry")).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, "connect-page-expired.png") });
      expect(await extensionToken()).toBeNull();
      await page.click("#retry");
      await page.waitForURL(`chrome-extension://${extensionId}/connected.html`, {
        timeout: 15_000,
      });
      await page.waitForFunction(
        () => document.getElementById("app")?.dataset.state === "connected",
      );
      expect(await extensionToken()).not.toBeNull();
      await page.close();
      await popup.close();
    } finally {
      wallet.beforeSign = undefined;
      await worker.evaluate(() => chrome.storage.local.remove("token"));
    }
  });

  it("connects through solana:signMessage when the wallet has no solana:signIn", async () => {
    const page = await connectWith("sign-message");
    expect(page.url()).not.toContain("token=");
    const token = await extensionToken();
    expect(token).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    const me = await call<{ publicKey: string }>(`${ext.url}/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.body.publicKey).toBe(wallet.publicKey);
    await page.close();
    await worker.evaluate(() => chrome.storage.local.remove("token"));
  });

  it("connects with solana:signIn, remembers a selection, recalls it, proves it, logs out", async () => {
    const connected = await connectWith("sign-in");
    await connected.close();
    const token = await extensionToken();
    expect(token).not.toBeNull();

    // Remember a selection from a page, as the context-menu entry does.
    const page = await context.newPage();
    await page.goto(articleUrl);
    const selection = await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById("quote") as HTMLElement);
      const selected = window.getSelection() as Selection;
      selected.removeAllRanges();
      selected.addRange(range);
      return { text: selected.toString(), url: location.href, title: document.title };
    });
    expect(selection.text).toBe(ARTICLE_TEXT);
    const memoryId = await worker.evaluate(
      ({ text, url, title }) =>
        (
          globalThis as unknown as {
            rememberSelection: (
              info: { selectionText: string; pageUrl: string },
              tab: { title: string; url: string },
            ) => Promise<string | null>;
          }
        ).rememberSelection({ selectionText: text, pageUrl: url }, { title, url }),
      selection,
    );
    expect(memoryId).toEqual(expect.any(String));

    // Find it through the popup's search.
    const popup = await openPopup();
    await popup.waitForSelector("#signed-in:not([hidden])");
    expect(await popup.textContent("#who")).toBe(wallet.publicKey);
    await popup.fill("#query", "merkle trees let anyone");
    await popup.click("#search button[type=submit]");
    await popup.waitForSelector(`#results li[data-id="${memoryId}"]`);
    expect(await popup.textContent(`#results li[data-id="${memoryId}"] .content`)).toBe(
      ARTICLE_TEXT,
    );
    expect(await popup.textContent(`#results li[data-id="${memoryId}"] .meta`)).toContain(
      "On Merkle trees",
    );
    await popup.setViewportSize({ width: 360, height: 400 });
    await popup.screenshot({ path: join(ARTIFACTS, "extension-popup.png") });

    // The same memory in core-api, for the same wallet.
    const session = await signIn(core.url, wallet);
    const listed = await call<{ items: { id: string; content: string; metadata: unknown }[] }>(
      `${core.url}/memories`,
      { headers: { authorization: `Bearer ${session.token}` } },
    );
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({
        id: memoryId,
        content: ARTICLE_TEXT,
        metadata: { url: articleUrl, title: "On Merkle trees" },
      }),
    );

    // Anchored by the anchor service's sweep, then verified against the chain alone.
    const authority = Keypair.generate();
    await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
    const report = await runSweep({
      db: core.db,
      chain: new ChainClient({
        rpcUrl: chain.url,
        programId: LOCAL_PROGRAM_ID,
        authority,
        confirmTimeoutMs: 20_000,
      }),
      config: { sealMaxPending: 1, sealMaxAgeMs: 0, maxInFlight: 4 },
      logger: pino({ level: "silent" }),
    });
    expect(report.committed).toBeGreaterThanOrEqual(1);
    const bundle = await call(`${core.url}/memories/${memoryId}/proof`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(bundle.body).toMatchObject({ anchored: true });
    const audit = await verifyBundle(bundle.body, { rpcUrl: chain.url, content: ARTICLE_TEXT });
    expect(audit.verified, audit.message).toBe(true);

    // Log out from the popup: the token is revoked server-side and forgotten.
    await popup.click("#logout");
    await popup.waitForSelector("#signed-out:not([hidden])");
    expect(await extensionToken()).toBeNull();
    const after = await call(`${ext.url}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    await popup.close();
    await page.close();
  });

  it("keeps a token only for the pending state, once; a forged visit does not cancel it", async () => {
    await worker.evaluate(() => chrome.storage.local.remove("token"));
    await worker.evaluate(() => chrome.storage.session.set({ connectState: "pending-state" }));
    const connected = `chrome-extension://${extensionId}/connected.html`;
    const settle = async (fragment: string): Promise<string> => {
      const page = await context.newPage();
      await page.goto(`${connected}#${fragment}`);
      await page.waitForFunction(() =>
        ["connected", "refused"].includes(document.getElementById("app")?.dataset.state ?? ""),
      );
      expect(page.url()).toBe(connected);
      const state = await page.evaluate(() => document.getElementById("app")?.dataset.state ?? "");
      await page.close();
      return state;
    };

    expect(await settle("token=forged&state=nope")).toBe("refused");
    expect(await settle("token=forged")).toBe("refused");
    expect(await extensionToken()).toBeNull();

    const issued = await connectDirectly("pending-state");
    expect(await settle(`token=${issued}&state=pending-state`)).toBe("connected");
    expect(await extensionToken()).toBe(issued);

    // The state admits one token: a replay of the same fragment with another token is refused.
    expect(await settle("token=replayed&state=pending-state")).toBe("refused");
    expect(await extensionToken()).toBe(issued);
    await worker.evaluate(() => chrome.storage.local.remove("token"));
  });
});
