/**
 * The API reference at `/docs`, served whole by the app itself so it works with no network access
 * and loads no code from another host: the page, Scalar's standalone bundle from the
 * installed `@scalar/api-reference` package at `/docs/scalar.js`, and the few lines that start it
 * at `/docs/init.js`. The page's Content-Security-Policy lets scripts come from the app's own
 * origin only.
 * @module
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Context, Env, Hono } from "hono";

/** Where the page, the Scalar bundle and the script that starts it are served. */
export const API_REFERENCE_PATHS = {
  page: "/docs",
  bundle: "/docs/scalar.js",
  init: "/docs/init.js",
} as const;

/** The id of the page's JSON block that holds Scalar's configuration (read by `/docs/init.js`). */
const CONFIG_ELEMENT_ID = "api-reference-config";

/**
 * Starts the reference: reads the configuration from the page's JSON block (a data block, which
 * the Content-Security-Policy does not treat as a script) and mounts Scalar on `#app`.
 */
const INIT_SCRIPT = `Scalar.createApiReference("#app", JSON.parse(document.getElementById(${JSON.stringify(CONFIG_ELEMENT_ID)}).textContent));\n`;

/** A script served with a long cache life under a URL that changes with its content. */
interface StaticScript {
  readonly body: Uint8Array<ArrayBuffer>;
  /** The first 16 hex digits of the body's SHA-256: the `?v=` of its URL and its ETag. */
  readonly version: string;
  /** The gzip-compressed body, made on the first request that accepts it. */
  gzipped?: Promise<Uint8Array<ArrayBuffer>>;
}

/** A script of `body`, with its version. */
function staticScript(body: Uint8Array<ArrayBuffer>): StaticScript {
  return { body, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

let scripts: { readonly bundle: StaticScript; readonly init: StaticScript } | undefined;

/**
 * The two scripts, read once per process: Scalar's standalone (UMD) bundle, which defines
 * `window.Scalar` and loads nothing else, and {@link INIT_SCRIPT}.
 */
function referenceScripts(): { readonly bundle: StaticScript; readonly init: StaticScript } {
  if (!scripts) {
    // The package exports no subpath for the bundle: find it beside its main entry (dist/index.js).
    const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
    scripts = {
      bundle: staticScript(
        new Uint8Array(readFileSync(join(dirname(main), "browser", "standalone.js"))),
      ),
      init: staticScript(new TextEncoder().encode(INIT_SCRIPT)),
    };
  }
  return scripts;
}

/**
 * Scalar's configuration: the document at `/openapi.json` with every tag open (the APIs are small
 * enough to show every operation at once), and nothing that reaches or links to Scalar's hosted
 * services — no web fonts (system fonts instead), no telemetry, no developer toolbar, no AI
 * agent, no "Generate MCP" button.
 */
const SCALAR_CONFIGURATION = {
  url: "/openapi.json",
  defaultOpenAllTags: true,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
} as const;

/**
 * The page's Content-Security-Policy: scripts from this origin only (no inline script, no eval);
 * styles from this origin and inline, because Scalar inserts its stylesheet as a `<style>`
 * element at run time; requests to this origin and to the API's public origin (the reference's
 * "Test Request" calls it); images and fonts from this origin or `data:` URLs; never framed.
 */
export function apiReferencePolicy(serverUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(serverUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Escapes text for HTML element content. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The page: Scalar's configuration as a JSON data block, then the bundle and the init script. */
function referencePage(title: string): string {
  const { bundle, init } = referenceScripts();
  // `<` escaped, so no text in the configuration can close the data block.
  const config = JSON.stringify(SCALAR_CONFIGURATION).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)}</title>
    <script id="${CONFIG_ELEMENT_ID}" type="application/json">${config}</script>
  </head>
  <body>
    <div id="app"></div>
    <script src="${API_REFERENCE_PATHS.bundle}?v=${bundle.version}"></script>
    <script src="${API_REFERENCE_PATHS.init}?v=${init.version}"></script>
  </body>
</html>
`;
}

/**
 * Answers with a script: `text/javascript`, cached for a year (its URL in the page changes with
 * its content), gzip-compressed when the client accepts it, 304 for a matching `If-None-Match`.
 */
async function serveScript(c: Context, script: StaticScript): Promise<Response> {
  const etag = `"${script.version}"`;
  c.header("content-type", "text/javascript; charset=utf-8");
  c.header("cache-control", "public, max-age=31536000, immutable");
  c.header("etag", etag);
  c.header("vary", "accept-encoding");
  c.header("x-content-type-options", "nosniff");
  if (c.req.header("if-none-match") === etag) {
    return c.body(null, 304);
  }
  if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
    script.gzipped ??= promisify(gzip)(script.body).then((zipped) => new Uint8Array(zipped));
    c.header("content-encoding", "gzip");
    return c.body(await script.gzipped, 200);
  }
  return c.body(script.body, 200);
}

/**
 * Registers `GET /docs` (the reference page for `title`, with its Content-Security-Policy),
 * `GET /docs/scalar.js` and `GET /docs/init.js`. `serverUrl` is the API's public base URL, which
 * the page may call. The scripts are read when this runs, once per process.
 */
export function registerApiReference<E extends Env>(
  app: Hono<E>,
  options: { readonly title: string; readonly serverUrl: string },
): void {
  const { bundle, init } = referenceScripts();
  const page = referencePage(options.title);
  const policy = apiReferencePolicy(options.serverUrl);
  app.get(API_REFERENCE_PATHS.page, (c) => {
    c.header("content-security-policy", policy);
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
    c.header("cache-control", "no-cache");
    return c.html(page);
  });
  app.get(API_REFERENCE_PATHS.bundle, (c) => serveScript(c, bundle));
  app.get(API_REFERENCE_PATHS.init, (c) => serveScript(c, init));
}
