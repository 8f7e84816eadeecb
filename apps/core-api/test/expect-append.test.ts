import { AppendQueue } from "@verifiable-memory/memory";
import { appendItem } from "@verifiable-memory/memory/testing";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../src/context.js";
import { expectAppend } from "../src/middleware/expect-append.js";
import { newUser, startTestApp, type TestApp } from "./helpers.js";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("expectAppend middleware", () => {
  it("announces the request's append, appends through it, and withdraws it when the request fails", async () => {
    const u = await newUser(t.app);
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const app = new Hono<AppEnv>();
    let seen = -1;
    app.post("/append", expectAppend(queue), async (c) => {
      seen = queue.expectedAppends;
      const leaf = await c.var.expectedAppend.append(u.userId, appendItem());
      return c.json(leaf, 201);
    });
    app.post("/fail", expectAppend(queue), () => {
      throw new Error("refused before appending");
    });
    app.onError((_error, c) => c.json({ error: "failed" }, 500));

    const ok = await app.request("/append", { method: "POST" });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(seen).toBe(1);
    expect((await app.request("/fail", { method: "POST" })).status).toBe(500);
    expect(queue.expectedAppends).toBe(0);
    // Nothing is left announced, so a later batch does not hold (maxHoldMs is a minute here).
    const again = await app.request("/append", { method: "POST" });
    expect(await again.json()).toEqual({ leafIndex: 1, treeSize: 2 });
  });
});
