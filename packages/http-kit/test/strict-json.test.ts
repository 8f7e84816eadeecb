/**
 * The number rule of docs/protocol.md §1.2 "Requests" (isExactJsonNumber) and the key rule
 * (checkStrictJson), on literals as written.
 * @module
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.js";
import { checkStrictJson, isExactJsonNumber } from "../src/strict-json.js";

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

describe("checkStrictJson", () => {
  /** The refusal of `text`, or undefined when it passes. */
  const refusal = (text: string) => {
    try {
      checkStrictJson(text);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      return { message: (error as ApiError).message, details: (error as ApiError).details };
    }
  };

  it("names the path of a duplicate key, in objects at any depth and in arrays", () => {
    expect(refusal('{"a":1,"a":1}')?.details).toEqual([{ path: ["a"], message: "duplicate key" }]);
    expect(refusal('[{"x":[{"c":1,"c":2}]}]')?.message).toBe("[0].x[0].c: duplicate key");
    expect(refusal('{"a":{"b":1},"c":{"b":1}}')).toBeUndefined();
  });

  it("checks numbers under metadata only, and leaves malformed text to the validators", () => {
    expect(refusal('{"metadata":{"n":[1e400]}}')?.details).toEqual([
      { path: ["metadata", "n", 0], message: expect.stringContaining("not exactly") },
    ]);
    expect(refusal('{"limit":1e400,"metadata":{"n":1.0}}')).toBeUndefined();
    expect(refusal('{"a":')).toBeUndefined();
  });
});
