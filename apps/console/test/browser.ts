/**
 * Chromium for the console's tests (Debian's /usr/bin/chromium driven by playwright-core; nothing
 * downloads a browser), a page that records what it must not do (requests to other origins,
 * Content-Security-Policy refusals, uncaught errors), the axe-core scan, and screenshots written
 * to `.ci/artifacts/console/` (git-ignored).
 * @module
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CONSOLE_DIR } from "../build/freshness.js";

export const CHROMIUM = "/usr/bin/chromium";
/** Where the screenshots go. */
export const ARTIFACTS = resolve(CONSOLE_DIR, "../../.ci/artifacts/console");
/** Whether the tests can run here. */
export const haveChromium = existsSync(CHROMIUM);

if (!haveChromium && process.env.CI) {
  throw new Error(
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
  );
}
if (!haveChromium) {
  console.warn(
    `\n  !! ${CHROMIUM} is missing: the console browser tests are SKIPPED. apt-get install -y chromium\n`,
  );
}

/** Launches headless Chromium with the flags this machine's closed network needs. */
export async function launch(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A page and what it recorded. */
export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests to an origin not in `allowed`. */
  readonly foreign: string[];
  /** Console messages about the Content-Security-Policy, and uncaught page errors. */
  readonly problems: string[];
}

/** A new page that records requests outside `allowed` (origins) and CSP or script errors. */
export async function watchedPage(
  browser: Browser,
  allowed: readonly string[],
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol !== "data:" && url.protocol !== "blob:" && !allowed.includes(url.origin)) {
      foreign.push(request.url());
    }
  });
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) {
      problems.push(message.text());
    }
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return { context, page, foreign, problems };
}

/** Saves a full-page screenshot as `<name>.png` under {@link ARTIFACTS}. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

let axeSource: string | null = null;

/** One axe-core violation, as reported. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: number;
}

/**
 * Runs axe-core (WCAG 2 A and AA rules and best practices) on the page as it is.
 * @returns the violations of impact serious or critical.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(
    createRequire(join(CONSOLE_DIR, "package.json")).resolve("axe-core/axe.min.js"),
    "utf8",
  );
  // Evaluated through the DevTools protocol: the page's CSP does not apply to it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
