/**
 * withProtocolErrors: every operation lists 400 and 500, body operations 413 and 415, and what a
 * route declared itself is kept (docs/protocol.md §1).
 */
import { describe, expect, it } from "vitest";
import { withProtocolErrors } from "../src/openapi.js";

describe("withProtocolErrors", () => {
  it("adds the shared error answers and keeps the route's own", () => {
    const own = { description: "invalid_request or invalid_public_key" };
    const doc = withProtocolErrors({
      paths: {
        "/a": { get: { responses: { "200": { description: "ok" } } } },
        "/b": { post: { requestBody: {}, responses: { "400": own } } },
      },
    });
    const get = doc.paths["/a"].get.responses as Record<string, unknown>;
    const post = doc.paths["/b"].post.responses as Record<string, unknown>;
    expect(Object.keys(get).sort()).toEqual(["200", "400", "500"]);
    expect(Object.keys(post).sort()).toEqual(["400", "413", "415", "500"]);
    expect(post["400"]).toBe(own);
    expect(post["413"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
  });
});
