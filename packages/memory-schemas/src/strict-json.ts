/**
 * Strict JSON text (docs/protocol.md §1.2 "Requests"): an object holding the same key twice, or a
 * `metadata` holding a number that a double does not carry exactly, is refused with the path of the
 * first offence, before any validator parses the text with `JSON.parse` (which would keep the last
 * duplicate and round the number silently). One rule for every JSON body of both APIs and for
 * every line of the stdio MCP server.
 *
 * The scan is one pass over the text's UTF-16 code units: string contents are skipped with
 * `indexOf` (keys are sliced only when an object has a second key, or to recognise `metadata`),
 * numbers outside `metadata` are skipped, and paths are built only for a refusal. It checks only
 * the structure it needs; text that is not JSON is never refused here (a refusal is confirmed
 * with `JSON.parse`), so it reaches the validators and their `malformed request body`.
 * @module
 */

/** A path into a JSON value: member names and array indices, outermost first. */
export type JsonPath = (string | number)[];

/** Why {@link findStrictJsonRefusal} refuses a text. */
export interface StrictJsonRefusal {
  /** Where: `["items", 1, "metadata", "size"]`. */
  readonly path: JsonPath;
  /** What, without the path: `duplicate key`, or the inexact-number message. */
  readonly message: string;
  /** The path as text, a colon, the message: `items[1].metadata.size: duplicate key`. */
  readonly text: string;
}

/** The largest integer a double holds with every smaller one (2^53 − 1). */
const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/** A JSON number literal: sign, integer digits, fraction digits, exponent (RFC 8259 §6). */
const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal value of a JSON number literal (or of `String(number)`, which has the same grammar
 * without a `+` in the exponent) as `sign digits e exponent` with no leading or trailing zeros in
 * the digits, or `0` for zero (either sign), so two literals of one value give one string.
 */
function decimalValue(literal: string): string {
  const match = NUMBER_LITERAL.exec(literal);
  if (!match) {
    return literal;
  }
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") {
    return "0";
  }
  let scale = BigInt(exponent) - BigInt(fraction.length);
  const trimmed = digits.replace(/0+$/, "");
  scale += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${sign}${digits}e${scale}`;
}

/**
 * Whether the JSON number `literal` is stored exactly by the double it parses to (docs/protocol.md
 * §1.2 "Requests"): finite; an integer value only within ±(2^53 − 1); and the same decimal
 * value as the double's shortest round-trip form (ECMAScript Number::toString), so `0.1`, `0.50`,
 * `1.0` and `1e2` are exact while `123456789012345678901234567890` and `0.10000000000000000001`
 * (which read back as other numbers) are not.
 */
export function isExactJsonNumber(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) {
    return false;
  }
  if (Number.isInteger(value) && Math.abs(value) > MAX_EXACT_INTEGER) {
    return false;
  }
  const shortest = String(value);
  return shortest === literal || decimalValue(literal) === decimalValue(shortest);
}

/** `path` as written in messages: `items[0].metadata.size`, `(body)` for the top level. */
export function showJsonPath(path: JsonPath): string {
  let shown = "";
  for (const segment of path) {
    shown += typeof segment === "number" ? `[${segment}]` : shown === "" ? segment : `.${segment}`;
  }
  return shown === "" ? "(body)" : shown;
}

/** The message of an inexact metadata number. */
export const INEXACT_NUMBER_MESSAGE =
  "number is not exactly representable as an IEEE 754 double (integers within ±(2^53 − 1), decimals that read back unchanged)";

/** The message of a key an object holds twice. */
export const DUPLICATE_KEY_MESSAGE = "duplicate key";

/** Thrown inside the scan when the text is not JSON, or nests too deep to check: it passes. */
const NOT_JSON = Symbol("not JSON");

/**
 * Objects and arrays nested deeper than this are not checked (the text passes): no request schema
 * accepts such nesting (metadata nests at most 32 deep, docs/protocol.md §1.6), and the scan's
 * recursion stays far from the stack's limit.
 */
const MAX_CHECKED_DEPTH = 1_000;

/** An offence found by the scan; the path is completed as the recursion unwinds. */
class Offence {
  readonly path: JsonPath = [];
  constructor(readonly message: string) {}
}

/** The scan's state: the text, the position, and where the next backslash is (or the end). */
let text = "";
let pos = 0;
let nextBackslash = 0;
let depth = 0;

/**
 * Checks the JSON text `source` (docs/protocol.md §1.2 "Requests"): no object holds the same key
 * twice (keys compared after unescaping, so `"a"` and `"\u0061"` are the same key), and every
 * number under a member named `metadata`, at any depth, is exact ({@link isExactJsonNumber}).
 * Text that is not JSON passes: its parser refuses it in its turn.
 * @returns the first offence in text order, or `null` when the text passes.
 */
export function findStrictJsonRefusal(source: string): StrictJsonRefusal | null {
  text = source;
  pos = 0;
  depth = 0;
  keyTop = 0;
  nextBackslash = source.indexOf("\\");
  if (nextBackslash === -1) {
    nextBackslash = source.length;
  }
  let offence: Offence | undefined;
  try {
    skipSpace();
    offence = value(false);
    skipSpace();
    if (offence === undefined && pos !== text.length) {
      throw NOT_JSON;
    }
  } catch (error) {
    if (error !== NOT_JSON) {
      throw error;
    }
    return null;
  } finally {
    text = "";
  }
  if (offence === undefined || !isJson(source)) {
    return null;
  }
  const path = offence.path.reverse();
  return { path, message: offence.message, text: `${showJsonPath(path)}: ${offence.message}` };
}

/** Whether `source` parses as JSON (the scan checks only the structure it needs). */
function isJson(source: string): boolean {
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
}

/** Moves past JSON whitespace. */
function skipSpace(): void {
  let code = text.charCodeAt(pos);
  while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
    code = text.charCodeAt(++pos);
  }
}

/**
 * Moves past the string starting at `pos` (a `"`).
 * @returns whether it holds a backslash (an escape).
 */
function skipString(): boolean {
  const start = pos + 1;
  let end = text.indexOf('"', start);
  if (end === -1) {
    throw NOT_JSON;
  }
  let escaped = false;
  if (nextBackslash < end) {
    escaped = true;
    // An escaped quote ends nothing: find the quote preceded by an even run of backslashes.
    for (;;) {
      let run = 0;
      while (text.charCodeAt(end - 1 - run) === 0x5c) {
        run++;
      }
      if (run % 2 === 0) {
        break;
      }
      end = text.indexOf('"', end + 1);
      if (end === -1) {
        throw NOT_JSON;
      }
    }
    nextBackslash = text.indexOf("\\", end);
    if (nextBackslash === -1) {
      nextBackslash = text.length;
    }
  }
  pos = end + 1;
  return escaped;
}

/** The key of the string from `start` (its opening quote) to `end` (past its closing quote). */
function keyAt(start: number, end: number, escaped: boolean): string {
  const raw = text.slice(start, end);
  if (!escaped) {
    return raw.slice(1, -1);
  }
  try {
    return JSON.parse(raw) as string;
  } catch {
    throw NOT_JSON;
  }
}

/** Whether the string from `start` to `pos` is the key `metadata` (escaped or not). */
function isMetadataKey(start: number, escaped: boolean): boolean {
  return escaped
    ? keyAt(start, pos, true) === "metadata"
    : pos - start === 10 && text.startsWith("metadata", start + 1);
}

/** Moves past the value at `pos`; `inMetadata` when it lies under a member named `metadata`. */
function value(inMetadata: boolean): Offence | undefined {
  const code = text.charCodeAt(pos);
  if (code === 0x22) {
    skipString();
    return undefined;
  }
  if (code === 0x7b || code === 0x5b) {
    if (++depth > MAX_CHECKED_DEPTH) {
      throw NOT_JSON;
    }
    const offence = code === 0x7b ? object(inMetadata) : array(inMetadata);
    depth--;
    return offence;
  }
  if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
    return number(inMetadata);
  }
  for (const literal of ["true", "false", "null"]) {
    if (text.startsWith(literal, pos)) {
      pos += literal.length;
      return undefined;
    }
  }
  throw NOT_JSON;
}

/**
 * Moves past the number at `pos` (its grammar is the parser's to check), testing it when it lies
 * in metadata. A literal without an exponent and with at most 15 digits is exact without further
 * work: any decimal of at most 15 significant digits reads back from the nearest double (IEEE 754
 * binary64 carries 15 decimal digits), and without an exponent it is a normal number (at least
 * 1e-15) or zero. Other literals go to {@link isExactJsonNumber}.
 */
function number(inMetadata: boolean): Offence | undefined {
  const start = pos;
  let digits = 0;
  let exponent = false;
  for (let code = text.charCodeAt(pos); ; code = text.charCodeAt(++pos)) {
    if (code >= 0x30 && code <= 0x39) {
      digits++;
    } else if (code === 0x65 || code === 0x45) {
      exponent = true;
    } else if (code !== 0x2e && code !== 0x2d && code !== 0x2b) {
      break;
    }
  }
  if (inMetadata && (exponent || digits > 15) && !isExactJsonNumber(text.slice(start, pos))) {
    return new Offence(INEXACT_NUMBER_MESSAGE);
  }
  return undefined;
}

/**
 * The keys of the open objects, innermost last, as offsets into the text (opening quote to past
 * the closing quote): an object compares a new key with its own entries (from its base up) and
 * drops them when it closes, so checking keys allocates nothing until an object holds
 * {@link MAX_LINEAR_KEYS} keys or an escaped key (then its keys go into a `Set` of strings).
 */
const keyStarts: number[] = [];
const keyEnds: number[] = [];
let keyTop = 0;

/** The most keys of one object compared pairwise before a `Set` takes over. */
const MAX_LINEAR_KEYS = 16;

/** Whether the unescaped keys at `[a, a + length)` and `[b, b + length)` are the same text. */
function sameText(a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) {
      return false;
    }
  }
  return true;
}

/** Moves past the object at `pos` (a `{`), checking its keys. */
function object(inMetadata: boolean): Offence | undefined {
  pos++;
  skipSpace();
  if (text.charCodeAt(pos) === 0x7d) {
    pos++;
    return undefined;
  }
  const base = keyTop;
  let seen: Set<string> | undefined;
  for (;;) {
    if (text.charCodeAt(pos) !== 0x22) {
      throw NOT_JSON;
    }
    const start = pos;
    const escaped = skipString();
    const end = pos;
    if (seen === undefined && (escaped || keyTop - base >= MAX_LINEAR_KEYS)) {
      seen = new Set();
      for (let i = base; i < keyTop; i++) {
        seen.add(keyAt(keyStarts[i] as number, keyEnds[i] as number, false));
      }
    }
    if (seen !== undefined) {
      const key = keyAt(start, end, escaped);
      if (seen.has(key)) {
        return duplicate(key);
      }
      seen.add(key);
    } else {
      const length = end - start;
      for (let i = base; i < keyTop; i++) {
        const other = keyStarts[i] as number;
        if ((keyEnds[i] as number) - other === length && sameText(other, start, length)) {
          return duplicate(keyAt(start, end, false));
        }
      }
      keyStarts[keyTop] = start;
      keyEnds[keyTop] = end;
      keyTop++;
    }
    const memberInMetadata = inMetadata || isMetadataKey(start, escaped);
    skipSpace();
    if (text.charCodeAt(pos) !== 0x3a) {
      throw NOT_JSON;
    }
    pos++;
    skipSpace();
    const offence = value(memberInMetadata);
    if (offence !== undefined) {
      offence.path.push(keyAt(start, end, escaped));
      return offence;
    }
    skipSpace();
    const next = text.charCodeAt(pos++);
    if (next === 0x7d) {
      keyTop = base;
      return undefined;
    }
    if (next !== 0x2c) {
      throw NOT_JSON;
    }
    skipSpace();
  }
}

/** The offence of a key seen twice. */
function duplicate(key: string): Offence {
  const offence = new Offence(DUPLICATE_KEY_MESSAGE);
  offence.path.push(key);
  return offence;
}

/** Moves past the array at `pos` (a `[`). */
function array(inMetadata: boolean): Offence | undefined {
  pos++;
  skipSpace();
  if (text.charCodeAt(pos) === 0x5d) {
    pos++;
    return undefined;
  }
  for (let index = 0; ; index++) {
    const offence = value(inMetadata);
    if (offence !== undefined) {
      offence.path.push(index);
      return offence;
    }
    skipSpace();
    const next = text.charCodeAt(pos++);
    if (next === 0x5d) {
      return undefined;
    }
    if (next !== 0x2c) {
      throw NOT_JSON;
    }
    skipSpace();
  }
}
