/**
 * `@verifiable-memory/clock`: the injectable clock. Services read the time only through a
 * {@link Clock} passed in (auth's sessions and challenges, memory's timestamps and cache), so
 * tests control expiry with a {@link TestClock}; processes pass {@link systemClock}.
 * @module
 */

/** A source of the current time. */
export interface Clock {
  /** The current time (a fresh Date each call; callers may keep it). */
  now(): Date;
}

/** The system clock: `new Date()`. */
export const systemClock: Clock = { now: () => new Date() };

/** The instant a {@link TestClock} starts at by default: 2026-11-22T10:00:00.000Z. */
export const TEST_CLOCK_START = Date.parse("2026-11-22T10:00:00.000Z");

/** A clock that stands still until moved by hand (tests). */
export class TestClock implements Clock {
  private current: number;

  /**
   * @param start the starting instant in milliseconds since the Unix epoch (default
   *   {@link TEST_CLOCK_START}).
   * @throws RangeError when `start` is not a finite number.
   */
  constructor(start: number = TEST_CLOCK_START) {
    if (!Number.isFinite(start)) {
      throw new RangeError(`expected a finite start time in ms, got ${start}`);
    }
    this.current = start;
  }

  /** The clock's current instant. */
  now(): Date {
    return new Date(this.current);
  }

  /**
   * Moves the clock by `ms` milliseconds (negative moves it back).
   * @throws RangeError when `ms` is not a finite number.
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) {
      throw new RangeError(`expected a finite number of ms, got ${ms}`);
    }
    this.current += ms;
  }
}
