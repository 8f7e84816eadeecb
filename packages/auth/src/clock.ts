/**
 * The injectable clock: services read time only through it, so tests control expiry.
 * @module
 */

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

/** The system clock. */
export const systemClock: Clock = { now: () => new Date() };
