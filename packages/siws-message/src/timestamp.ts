/**
 * Timestamps of the sign-in message: ISO 8601 in UTC with exactly three fractional digits and a
 * `Z` suffix, `YYYY-MM-DDTHH:mm:ss.sssZ` (docs/protocol.md §2.2 "The message", §1
 * encodings). This is the form `Date.prototype.toISOString` gives for years
 * 0000–9999, and the only form accepted, so each instant has exactly one text.
 * @module
 */

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

/** Days in `month` (1–12) of the proleptic Gregorian `year`, as ISO 8601 and Date use. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    return leap ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Thrown by {@link parseTimestamp} on text that is not a strict UTC timestamp. */
export class TimestampParseError extends Error {
  override readonly name = "TimestampParseError";
  /** Why the text was rejected. */
  readonly reason: string;

  constructor(reason: string) {
    super(`invalid timestamp: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Why `text` is not a strict timestamp, or undefined when it is one.
 * @internal shared with the message parser.
 */
export function timestampProblem(text: string): string | undefined {
  const match = TIMESTAMP.exec(text);
  if (match === null) {
    return "expected YYYY-MM-DDTHH:mm:ss.sssZ (UTC with milliseconds)";
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Checked by hand: Date would roll 2026-02-30 over to March and accept 24:00.
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return "not a real calendar date and time";
  }
  return undefined;
}

/**
 * Formats an instant as `YYYY-MM-DDTHH:mm:ss.sssZ` (ISO 8601, UTC, milliseconds).
 * @param date - a valid Date whose UTC year is 0000–9999.
 * @returns e.g. `2026-11-22T10:00:00.000Z`.
 * @throws TypeError when `date` is not a Date; RangeError when it is invalid or its year is
 * outside 0000–9999 (ISO 8601 would need an expanded ±YYYYYY year).
 * @example
 * formatTimestamp(new Date(Date.UTC(2026, 10, 22, 10))); // "2026-11-22T10:00:00.000Z"
 */
export function formatTimestamp(date: Date): string {
  if (!(date instanceof Date)) {
    throw new TypeError("date must be a Date");
  }
  if (Number.isNaN(date.getTime())) {
    throw new RangeError("date must be a valid Date, got Invalid Date");
  }
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new RangeError(`date must have a UTC year in 0000..9999, got ${year}`);
  }
  return date.toISOString();
}

/**
 * Parses a strict `YYYY-MM-DDTHH:mm:ss.sssZ` timestamp. Rejects a missing or different number
 * of fractional digits, any offset other than `Z`, lowercase `t`/`z`, surrounding whitespace and
 * dates that do not exist (2026-02-30, 24:00:00.000, leap second :60).
 * @param text - the timestamp text.
 * @returns the instant as a Date.
 * @throws TimestampParseError when `text` is not such a timestamp.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseTimestamp("2026-11-22T10:00:00.000Z").getTime(); // 1795341600000
 */
export function parseTimestamp(text: string): Date {
  if (typeof text !== "string") {
    throw new TypeError("text must be a string");
  }
  const problem = timestampProblem(text);
  if (problem !== undefined) {
    throw new TimestampParseError(problem);
  }
  return new Date(text);
}
