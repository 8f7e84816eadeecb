import { describe, expect, it } from "vitest";
import { systemClock, TEST_CLOCK_START, TestClock } from "../src/index.js";

describe("TestClock", () => {
  it("stands still until advanced, then moves by exactly the amount", () => {
    const clock = new TestClock();
    expect(clock.now().getTime()).toBe(TEST_CLOCK_START);
    expect(clock.now().getTime()).toBe(TEST_CLOCK_START);
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe("2026-11-22T10:00:01.500Z");
    clock.advance(-500);
    expect(clock.now().getTime()).toBe(TEST_CLOCK_START + 1000);
  });

  it("hands out a fresh Date each call", () => {
    const clock = new TestClock(0);
    const first = clock.now();
    first.setTime(99);
    expect(clock.now().getTime()).toBe(0);
  });

  it("refuses a start or a step that is not a finite number", () => {
    expect(() => new TestClock(Number.NaN)).toThrow(RangeError);
    expect(() => new TestClock(0).advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe("systemClock", () => {
  it("reads the system time", () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
