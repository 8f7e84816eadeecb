/**
 * The connect page (docs/protocol.md §9): its HTML, and its script bundled from `connect/main.ts` by
 * esbuild once per process (at start, see main.ts), so the browser code is TypeScript checked
 * like the rest, not hand-written strings.
 * @module
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The bundled script and its SHA-256 (base64), for an ETag or a CSP hash. */
export interface ConnectScript {
  readonly body: string;
  readonly sha256: string;
}

let bundled: Promise<ConnectScript> | undefined;

/**
 * The connect page's script: `connect/main.ts` and its imports bundled for browsers (ESM,
 * minified, ES2022). Built once per process; later calls share the result.
 * @throws Error from esbuild when the source does not build (the process should not serve then).
 */
export function connectScript(): Promise<ConnectScript> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL("../connect/main.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    legalComments: "none",
  }).then((result) => {
    const body = result.outputFiles[0]?.text ?? "";
    return { body, sha256: createHash("sha256").update(body).digest("base64") };
  });
  return bundled;
}

/** Escapes text for HTML element content and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

/**
 * The page: a small card whose `#app[data-state]` the script drives. It holds no inline script;
 * the query string (redirect URI, state) is read by the script, never rendered by the server.
 */
export function connectPageHtml(input: { scriptPath: string; serviceName: string }): string {
  const name = escapeHtml(input.serviceName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect your wallet · ${name}</title>
<style>
  :root { color-scheme: light dark; --accent: #5b4cdb; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center;
         font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
         background: Canvas; color: CanvasText; }
  main { width: min(26rem, calc(100vw - 2rem)); padding: 2rem; border-radius: 1rem;
         border: 1px solid color-mix(in srgb, CanvasText 15%, transparent);
         box-shadow: 0 10px 30px color-mix(in srgb, CanvasText 10%, transparent); }
  h1 { font-size: 1.25rem; margin: 0 0 .25rem; }
  .service { margin: 0 0 1.5rem; opacity: .7; font-size: .9rem; }
  #status { margin: 0 0 1rem; min-height: 3em; }
  [data-state="no-wallet"] #status, [data-state="refused"] #status,
  [data-state="expired"] #status, [data-state="error"] #status { color: #c0392b; }
  [data-state="success"] #status { color: #1e8449; }
  button { font: inherit; padding: .6rem 1rem; border-radius: .5rem; border: 0; cursor: pointer;
           background: var(--accent); color: white; width: 100%; margin-top: .5rem; }
  #wallets { display: grid; gap: .25rem; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<main id="app" data-state="searching" aria-live="polite">
  <h1>Connect your wallet</h1>
  <p class="service">${name} · browser extension sign-in</p>
  <p id="status">Looking for a Solana wallet in this browser…</p>
  <div id="wallets" hidden></div>
  <button id="retry" type="button" hidden>Try again</button>
</main>
<script type="module" src="${escapeHtml(input.scriptPath)}"></script>
</body>
</html>
`;
}
