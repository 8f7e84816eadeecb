/**
 * The web console at `/console` (docs/console.md): core-api serves the console's build
 * (CONSOLE_DIR, `pnpm build` writes it) as static files. Every `/console` and `/console/*` path
 * that is not a file of the build answers the app's page, whatever its query string, with the
 * Content-Security-Policy `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'
 * data:; connect-src 'self' <chain RPC>; frame-ancestors 'none'`, so the page loads nothing from
 * another origin and talks only to this API and the chain RPC it checks proofs against
 * (CONSOLE_CHAIN_RPC_URL). `/console/config.json` tells the page both. The build's asset paths
 * are relative (it also runs from any static host); in the page served here they are made
 * absolute, so a deep path such as `/console/memories/x` finds them too. Files are read once, on
 * the first request that finds the build, and kept with their gzip form; a later build needs a
 * restart. Not rate limited, like `/docs`.
 * @module
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { errorBody } from "@verifiable-memory/http-kit";
import type { Context } from "hono";
import type { App, AppDeps, AppEnv } from "../context.js";

/** Where the console is mounted, below the API's public base path. */
export const CONSOLE_PATH = "/console";

/** Content types of the build's files, by extension. */
const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};
/** Extensions worth compressing. */
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".json", ".map", ".svg", ".txt"]);

/** One file as served. */
interface ServedFile {
  readonly body: Uint8Array;
  readonly gzipped: Uint8Array | null;
  readonly type: string;
  readonly etag: string;
  /** Content-addressed (under `assets/`, hashed names): cached for a year. */
  readonly immutable: boolean;
}

/** The build, as served: files by path relative to the build ("assets/index-x.js"). */
interface ConsoleBuild {
  readonly files: ReadonlyMap<string, ServedFile>;
  readonly page: ServedFile;
}

/**
 * The page's Content-Security-Policy: everything from this origin, images also from `data:`,
 * connections to this origin and to the chain RPC's origin, never framed.
 */
export function consolePolicy(chainRpcUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(chainRpcUrl).origin}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/** `bytes` as served: gzip form when worth it, an ETag over the content. */
function served(bytes: Uint8Array, extension: string, immutable: boolean): ServedFile {
  const compress = COMPRESSIBLE.has(extension) && bytes.byteLength > 1024;
  return {
    body: bytes,
    gzipped: compress ? new Uint8Array(gzipSync(bytes, { level: 9 })) : null,
    type: TYPES[extension] ?? "application/octet-stream",
    etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`,
    immutable,
  };
}

/** Every file under `dir`, as paths relative to it with `/` separators. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/**
 * The page with its relative asset references (`src="./…"`, `href="./…"`) made absolute under
 * `mount` (e.g. `/console/`).
 */
export function absolutePage(html: string, mount: string): string {
  return html.replace(/\b(src|href)="\.\/([^"]*)"/g, (_all, attribute: string, path: string) => {
    return `${attribute}="${mount}${path}"`;
  });
}

/**
 * Reads the build in `dir` (null when it has no index.html: not built).
 * @param mount the console's absolute path with a trailing slash, e.g. `/console/`.
 */
async function loadBuild(dir: string, mount: string): Promise<ConsoleBuild | null> {
  let paths: string[];
  try {
    paths = await listFiles(dir);
  } catch {
    return null;
  }
  if (!paths.includes("index.html")) {
    return null;
  }
  const files = new Map<string, ServedFile>();
  let page: ServedFile | null = null;
  for (const path of paths) {
    const bytes = new Uint8Array(await readFile(join(dir, path)));
    if (path === "index.html") {
      const html = absolutePage(new TextDecoder().decode(bytes), mount);
      page = served(new TextEncoder().encode(html), ".html", false);
      continue;
    }
    files.set(path, served(bytes, extname(path), path.startsWith("assets/")));
  }
  return page === null ? null : { files, page };
}

/** Answers `file` (gzip when accepted, 304 for a matching If-None-Match). */
function send(c: Context<AppEnv>, file: ServedFile): Response {
  c.header("content-type", file.type);
  c.header("etag", file.etag);
  c.header("x-content-type-options", "nosniff");
  c.header("cache-control", file.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  if (file.gzipped !== null) {
    c.header("vary", "Origin, Accept-Encoding");
  }
  if (c.req.header("if-none-match") === file.etag) {
    return c.body(null, 304);
  }
  if (file.gzipped !== null && /\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
    c.header("content-encoding", "gzip");
    return c.body(file.gzipped as Uint8Array<ArrayBuffer>, 200);
  }
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200);
}

/** Registers `GET /console` and `GET /console/*` (see the module documentation). */
export function registerConsole(app: App, deps: AppDeps): void {
  const basePath = new URL(deps.config.publicBaseUrl).pathname.replace(/\/+$/, "");
  const mount = `${basePath}${CONSOLE_PATH}/`;
  const policy = consolePolicy(deps.config.consoleChainRpcUrl);
  const config = JSON.stringify({
    apiUrl: "../",
    chainRpcUrl: deps.config.consoleChainRpcUrl,
  });
  let build: Promise<ConsoleBuild | null> | null = null;

  const handler = async (c: Context<AppEnv>) => {
    build ??= loadBuild(deps.config.consoleDir, mount);
    const loaded = await build;
    if (loaded === null) {
      build = null;
      return c.json(
        errorBody(
          "not_found",
          "the web console is not built: run `pnpm build` (or set CONSOLE_DIR to its build)",
        ),
        404,
      );
    }
    const path = c.req.path.slice(CONSOLE_PATH.length).replace(/^\/+/, "");
    if (path === "config.json") {
      c.header("cache-control", "no-cache");
      return c.json(JSON.parse(config) as Record<string, string>, 200);
    }
    const file = loaded.files.get(path);
    if (file !== undefined) {
      return send(c, file);
    }
    c.header("content-security-policy", policy);
    c.header("referrer-policy", "no-referrer");
    return send(c, loaded.page);
  };
  app.get(CONSOLE_PATH, handler);
  app.get(`${CONSOLE_PATH}/*`, handler);
}
