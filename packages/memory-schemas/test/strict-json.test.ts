/**
 * The number rule of docs/protocol.md §1.2 "Requests" (isExactJsonNumber) and the key rule
 * (findStrictJsonRefusal), on literals as written.
 * @module
 */
import { describe, expect, it } from "vitest";
import { findStrictJsonRefusal, isExactJsonNumber } from "../src/strict-json.js";

describe("isExactJsonNumber", () => {
  it("accepts literals whose value a double keeps", () => {
    for (const literal of [
      "0",
      "-0",
      "1.0",
      "1e2",
      "1E+2",
      "0.50",
      "0.1",
      "-2.5e-3",
      "1e-7",
      "5e-324",
      "9007199254740991",
      "-9007199254740991",
    ]) {
      expect(isExactJsonNumber(literal), literal).toBe(true);
    }
  });

  it("refuses integers past ±(2^53 − 1), decimals a double changes, and overflow", () => {
    for (const literal of [
      "123456789012345678901234567890",
      "9007199254740992",
      "-9007199254740993",
      "1e20",
      "0.10000000000000000001",
      // the double 0.1's exact expansion: it reads back (and is committed) as 0.1
      "0.1000000000000000055511151231257827",
      "2.5e-324",
      "1e400",
    ]) {
      expect(isExactJsonNumber(literal), literal).toBe(false);
    }
  });
});

describe("findStrictJsonRefusal", () => {
  /** The refusal of `text` as message and details, or undefined when it passes. */
  const refusal = (text: string) => {
    const found = findStrictJsonRefusal(text);
    return found === null
      ? undefined
      : { message: found.text, details: [{ path: found.path, message: found.message }] };
  };

  it("names the path of a duplicate key, in objects at any depth and in arrays", () => {
    expect(refusal('{"a":1,"a":1}')?.details).toEqual([{ path: ["a"], message: "duplicate key" }]);
    expect(refusal('[{"x":[{"c":1,"c":2}]}]')?.message).toBe("[0].x[0].c: duplicate key");
    expect(refusal('{"a":{"b":1},"c":{"b":1}}')).toBeUndefined();
    expect(refusal(' { "a" : 1 ,\n\t"b" : [ ] , "a" : { } } ')?.message).toBe("a: duplicate key");
  });

  it("compares keys after unescaping, and skips escaped quotes inside strings", () => {
    expect(refusal('{"a":1,"\\u0061":2}')?.message).toBe("a: duplicate key");
    expect(refusal('{"\\"":1,"\\u0022":2}')?.message).toBe('": duplicate key');
    expect(refusal('{"a\\\\":"x\\"y","a\\\\\\\\":1,"b":"\\\\"}')).toBeUndefined();
    expect(refusal('{"k":"\\",\\"k\\":1","k":2}')?.message).toBe("k: duplicate key");
  });

  it("refuses the same key among many (past the linear search), first in text order", () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",");
    expect(refusal(`{${keys}}`)).toBeUndefined();
    expect(refusal(`{${keys},"k33":0}`)?.message).toBe("k33: duplicate key");
    expect(refusal('{"metadata":{"n":1e400},"a":1,"a":2}')?.message).toMatch(/^metadata\.n: /);
    expect(refusal('{"a":1,"a":2,"metadata":{"n":1e400}}')?.message).toBe("a: duplicate key");
  });

  it("checks numbers under metadata only, and leaves malformed text to the validators", () => {
    expect(refusal('{"metadata":{"n":[1e400]}}')?.details).toEqual([
      { path: ["metadata", "n", 0], message: expect.stringContaining("not exactly") },
    ]);
    expect(refusal('{"limit":1e400,"metadata":{"n":1.0}}')).toBeUndefined();
    expect(
      refusal('{"items":[{"metadata":{"a":{"b":[0.5,123456789012345678901234567890]}}}]}')?.message,
    ).toMatch(/^items\[0\]\.metadata\.a\.b\[1\]: number is not exactly/);
    expect(refusal('{"m\\u0065tadata":{"n":9007199254740993}}')?.message).toMatch(/^metadata\.n: /);
    expect(refusal('{"metadata":12345678901234567890}')?.message).toMatch(/^metadata: /);
    expect(refusal('{"a":')).toBeUndefined();
    expect(refusal('{"a":1,"a":2')).toBeUndefined();
    expect(refusal('{"a":1,"a":2}x')).toBeUndefined();
    expect(refusal('{"a":1,"a":2,}')).toBeUndefined();
    expect(refusal('{"a":"\\x","a":2}')).toBeUndefined();
    expect(refusal("")).toBeUndefined();
  });

  it("leaves text nested past its checked depth to the validators, without overflowing", () => {
    const deep = `${"[".repeat(200_000)}{"a":1,"a":2}${"]".repeat(200_000)}`;
    expect(refusal(deep)).toBeUndefined();
    const shallow = `${"[".repeat(900)}{"a":1,"a":2}${"]".repeat(900)}`;
    expect(refusal(shallow)?.message).toMatch(/duplicate key$/);
  });
});
