/**
 * The HTTP reference server of the write benchmark, run as its own process like core-api: a bare
 * `new Hono()` with one empty route (`ALL /empty` → 204) on @hono/node-server, 127.0.0.1:$PORT.
 * @module
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
app.all("/empty", (c) => c.body(null, 204));
app.get("/readyz", (c) => c.body(null, 204));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" });
