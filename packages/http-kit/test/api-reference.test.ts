/**
 * The API reference's three responses without a browser: the page (its Content-Security-Policy,
 * the configuration block, script URLs that carry the scripts' versions, no CDN anywhere), Scalar's
 * bundle served byte for byte from the installed package (content type, year-long cache, ETag and
 * 304, gzip), and the init script. apps/core-api/test/api-reference.e2e.test.ts renders it in
 * Chromium with the network cut.
 * @module
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import {
  API_REFERENCE_PATHS,
  apiReferencePolicy,
  registerApiReference,
} from "../src/api-reference.js";

/** An app with only the reference, titled with characters HTML must escape. */
function referenceApp(): Hono {
  const app = new Hono();
  registerApiReference(app, {
    title: "Shelf <API> & co reference",
    serverUrl: "https://api.example.test/v1",
  });
  return app;
}

/** Scalar's standalone bundle as the installed package ships it. */
function installedBundle(): Buffer {
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return readFileSync(join(dirname(main), "browser", "standalone.js"));
}

describe("the API reference", () => {
  it("serves the page with a policy that allows scripts from this origin only", async () => {
    const res = await referenceApp().request(API_REFERENCE_PATHS.page);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self' https://api.example.test; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const html = await res.text();
    expect(html).toContain("<title>Shelf &lt;API&gt; &amp; co reference</title>");
    expect(html).toMatch(/<script src="\/docs\/scalar\.js\?v=[0-9a-f]{16}"><\/script>/);
    expect(html).toMatch(/<script src="\/docs\/init\.js\?v=[0-9a-f]{16}"><\/script>/);
    const config =
      /<script id="api-reference-config" type="application\/json">(.*?)<\/script>/.exec(html)?.[1];
    expect(JSON.parse(config ?? "null")).toMatchObject({
      url: "/openapi.json",
      withDefaultFonts: false,
      telemetry: false,
    });
    // Every script the page runs is one of the two served here; none is inline.
    expect(
      [...html.matchAll(/<script(?! id="api-reference-config")[^>]*>/g)].map((m) => m[0]),
    ).toEqual([
      expect.stringContaining('src="/docs/scalar.js?v='),
      expect.stringContaining('src="/docs/init.js?v='),
    ]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("allows requests to the origin of the API's public URL", () => {
    expect(apiReferencePolicy("http://localhost:8787/")).toContain(
      "connect-src 'self' http://localhost:8787;",
    );
  });

  it("serves Scalar's bundle from the installed package, cached for a year under its version", async () => {
    const app = referenceApp();
    const res = await app.request(API_REFERENCE_PATHS.bundle);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-encoding")).toBeNull();
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(installedBundle())).toBe(true);
    expect(body.toString("utf8", 0, 200_000)).not.toContain("cdn.jsdelivr.net");

    const etag = res.headers.get("etag") ?? "";
    const page = await (await app.request(API_REFERENCE_PATHS.page)).text();
    expect(page).toContain(`/docs/scalar.js?v=${etag.replace(/"/g, "")}`);
    const again = await app.request(API_REFERENCE_PATHS.bundle, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("gzips the bundle for a client that accepts it", async () => {
    const res = await referenceApp().request(API_REFERENCE_PATHS.bundle, {
      headers: { "accept-encoding": "gzip, deflate, br" },
    });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("accept-encoding");
    const gzipped = Buffer.from(await res.arrayBuffer());
    expect(gzipped.length).toBeLessThan(installedBundle().length / 2);
    expect(gunzipSync(gzipped).equals(installedBundle())).toBe(true);
  });

  it("serves the script that mounts Scalar with the page's configuration", async () => {
    const res = await referenceApp().request(API_REFERENCE_PATHS.init);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await res.text()).toBe(
      'Scalar.createApiReference("#app", JSON.parse(document.getElementById("api-reference-config").textContent));\n',
    );
  });
});
