/**
 * `GET /connect` and its script (docs/protocol.md §9): the page that signs in with the browser wallet and
 * redirects to `redirect_uri#token=…&state=…`. The redirect URI is checked before the page is
 * served (400 invalid_redirect_uri), as it is again by both JSON steps.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, limitPerClientIp, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { connectPageHtml, connectScript } from "../../connect-page.js";
import type { App, AppDeps, AppEnv } from "../../context.js";
import { assertExtensionRedirectUri } from "../../services/connect.js";
import { RedirectUriSchema, StateSchema } from "./_schema.js";

/** Where the page loads its bundled script from. */
export const CONNECT_SCRIPT_PATH = "/connect/app.js";

/**
 * The page's security headers: it must never be framed (a signing page under someone else's
 * frame is clickjacking) nor cached, and sends no Referer (its URL holds the state). Scripts are
 * not restricted further, because wallets inject their Wallet Standard provider into the page.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/** Registers `GET /connect` and `GET /connect/app.js`. */
export function registerGetConnectPage(app: App, deps: AppDeps): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/connect",
      operationId: "getConnectPage",
      security: [],
      middleware: [limitPerClientIp<AppEnv>()] as const,
      tags: ["connect"],
      summary: "The wallet connect page (HTML) for a Chrome extension",
      request: {
        query: z.strictObject({ redirect_uri: RedirectUriSchema, state: StateSchema.optional() }),
      },
      responses: {
        200: { description: "The page", content: { "text/html": { schema: z.string() } } },
        400: errorResponse("invalid_request or invalid_redirect_uri"),
        429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
      },
    }),
    (c) => {
      assertExtensionRedirectUri(c.req.valid("query").redirect_uri);
      for (const [name, value] of Object.entries(PAGE_HEADERS)) {
        c.header(name, value);
      }
      return c.html(
        connectPageHtml({
          scriptPath: CONNECT_SCRIPT_PATH,
          serviceName: deps.config.siws.serviceName,
        }),
        200,
      );
    },
  );
  app.get(CONNECT_SCRIPT_PATH, async (c) => {
    const script = await connectScript();
    c.header("content-type", "text/javascript; charset=utf-8");
    c.header("cache-control", "no-cache");
    c.header("etag", `"${script.sha256}"`);
    if (c.req.header("if-none-match") === `"${script.sha256}"`) {
      return c.body(null, 304);
    }
    return c.body(script.body, 200);
  });
}
