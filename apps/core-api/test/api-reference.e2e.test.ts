/**
 * `/docs` with no network beyond this machine, in real headless Chromium (Debian's
 * /usr/bin/chromium driven by playwright-core; nothing downloads a browser): core-api runs
 * in-process on a real port, every request to a host other than localhost is aborted, and the page
 * must still render the reference and list the routes, with no request having left localhost and
 * nothing refused by the page's Content-Security-Policy but an eval probe; "Test Request" reaches
 * the document's server. The screenshot goes to test-artifacts/ (git-ignored).
 * @module
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve(import.meta.dirname, "../../../test-artifacts");
/** Hosts the page may reach: the app's own. */
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) {
  throw new Error(
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
  );
}
if (!haveChromium) {
  console.warn(
    `\n  !! ${CHROMIUM} is missing: the /docs browser test is SKIPPED. apt-get install -y chromium\n`,
  );
}

let core: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) {
    return;
  }
  core = await startTestApp();
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await core?.close();
});

/** A page whose requests to any host but localhost are aborted and recorded. */
async function offlinePage(): Promise<{ page: Page; leftLocalhost: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const leftLocalhost: string[] = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "data:" || url.protocol === "blob:" || LOCAL_HOSTS.has(url.hostname)) {
      return route.continue();
    }
    leftLocalhost.push(url.href);
    return route.abort("internetdisconnected");
  });
  return { page, leftLocalhost };
}

/** Operation summaries and paths the reference must show (from /openapi.json). */
const SHOWN = [
  "Store a memory",
  "Issue a sign-in challenge",
  "List the caller's API keys",
  "Use a capability grant",
  "/memories",
  "/auth/challenge",
  "/keys",
];

describe.skipIf(!haveChromium)("/docs offline in headless Chromium", () => {
  it("renders the reference from the app alone and lists the routes", async () => {
    const { page, leftLocalhost } = await offlinePage();
    // Every Content-Security-Policy violation on the page (a blocked script, style, font, fetch),
    // kept in `window.cspViolations` (page code as a string: this package compiles without DOM types).
    await page.addInitScript(`
      window.cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e) =>
        window.cspViolations.push(e.effectiveDirective + " " + e.blockedURI));
    `);
    const requested: string[] = [];
    // Each request's URL, the query string cut to its name (`?v=`).
    page.on("request", (request) => requested.push(request.url().replace(/=.*$/, "=")));

    const response = await page.goto(`${core.url}/docs`);
    expect(response?.status()).toBe(200);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("default-src 'none'");

    // The document was fetched from /openapi.json and rendered by /docs/scalar.js.
    for (const shown of SHOWN) {
      await page.getByText(shown).first().waitFor({ state: "visible", timeout: 30_000 });
    }
    await page.screenshot({ path: join(ARTIFACTS, "api-reference.png") });

    expect(requested).toEqual(
      expect.arrayContaining([
        `${core.url}/docs`,
        `${core.url}/docs/scalar.js?v=`,
        `${core.url}/docs/init.js?v=`,
        `${core.url}/openapi.json`,
      ]),
    );

    // "Test Request" sends to the document's server (PUBLIC_BASE_URL, which the policy allows
    // besides the page's own origin; nothing need answer there).
    await page
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click();
    await page.getByRole("button", { name: /^Send get request/ }).click();
    await expect
      .poll(() => requested, { timeout: 10_000 })
      .toContain(`${core.config.publicBaseUrl}/healthz`);
    expect(leftLocalhost).toEqual([]);
    // The one refusal expected: the bundle's zod probes whether eval is allowed (`Function("")`
    // in a try) and, refused as the policy means it to be, validates without it.
    const violations = (await page.evaluate("window.cspViolations")) as string[];
    expect(violations.filter((v) => v !== "script-src eval")).toEqual([]);
    await page.close();
  });
});
