/**
 * Strict JSON bodies (docs/protocol.md §1.2 "Requests"): a body whose object has the same key
 * twice, or whose `metadata` holds a number that a double does not carry exactly, is 400
 * `invalid_request` naming the path, before any validator parses it. One rule for every JSON body
 * of both APIs, MCP over HTTP included. The text is scanned with `jsonc-parser`'s visitor (raw
 * number literals and every key as written, duplicates included); the validators then parse the
 * same text with `JSON.parse`, so `1.0`, `1e2` and `0.50` arrive as 1, 100 and 0.5.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type JSONPath, visit } from "jsonc-parser";
import { ApiError } from "./errors.js";

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
function showPath(path: JSONPath): string {
  let shown = "";
  for (const segment of path) {
    shown += typeof segment === "number" ? `[${segment}]` : shown === "" ? segment : `.${segment}`;
  }
  return shown === "" ? "(body)" : shown;
}

/** The 400 naming `path` (also in `details`, as the validators name a failing field). */
function refused(path: JSONPath, message: string): ApiError {
  return new ApiError("invalid_request", `${showPath(path)}: ${message}`, [{ path, message }]);
}

/**
 * Checks the JSON text `text` (docs/protocol.md §1.2 "Requests"): no object holds the same
 * key twice (keys compared after unescaping, so `"a"` and `"\u0061"` are the same key), and every
 * number under a member named `metadata` is exact ({@link isExactJsonNumber}).
 * Text that is not JSON passes: the validators' `JSON.parse` refuses it in its turn (400
 * `malformed request body`, after authentication).
 * @throws ApiError invalid_request naming the path of the first duplicate key or inexact number.
 */
export function checkStrictJson(text: string): void {
  try {
    scan(text);
  } catch (error) {
    if (error !== NOT_JSON) {
      throw error;
    }
  }
}

/** Thrown by {@link scan} at the first syntax error, to stop the visit. */
const NOT_JSON = Symbol("not JSON");

/** An open object (`keys` seen so far, `key` the last one) or array, and whether it is in metadata. */
interface Container {
  readonly keys: Set<string> | null;
  key: string;
  readonly inMetadata: boolean;
}

const INEXACT =
  "number is not exactly representable as an IEEE 754 double (integers within ±(2^53 − 1), decimals that read back unchanged)";

/** The visit of {@link checkStrictJson}. Paths are built only for a refusal. */
function scan(text: string): void {
  const open: Container[] = [];
  /** Whether the value starting now lies under a member named `metadata`. */
  const valueInMetadata = (): boolean => {
    const top = open[open.length - 1];
    return top !== undefined && (top.inMetadata || (top.keys !== null && top.key === "metadata"));
  };
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push({ keys: new Set(), key: "", inMetadata: valueInMetadata() });
      },
      onArrayBegin: () => {
        open.push({ keys: null, key: "", inMetadata: valueInMetadata() });
      },
      onObjectEnd: () => {
        open.pop();
      },
      onArrayEnd: () => {
        open.pop();
      },
      onObjectProperty: (property, _offset, _length, _line, _character, pathSupplier) => {
        const top = open[open.length - 1];
        if (top?.keys) {
          if (top.keys.has(property)) {
            throw refused([...pathSupplier(), property], "duplicate key");
          }
          top.keys.add(property);
          top.key = property;
        }
      },
      onLiteralValue: (value, offset, length, _line, _character, pathSupplier) => {
        if (
          typeof value === "number" &&
          valueInMetadata() &&
          !isExactJsonNumber(text.slice(offset, offset + length))
        ) {
          throw refused(pathSupplier(), INEXACT);
        }
      },
      onError: () => {
        throw NOT_JSON;
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
}

/**
 * Middleware applying {@link checkStrictJson} to every request body, as the body is read and
 * before authentication (bodies are JSON: the preceding `requireJsonBody` refuses others). The
 * text stays cached for the validators.
 */
export function strictJsonBody(): MiddlewareHandler {
  return async (c, next) => {
    const hasBody =
      Number(c.req.header("content-length") ?? "0") > 0 ||
      c.req.header("transfer-encoding") !== undefined;
    if (hasBody && c.req.method !== "GET" && c.req.method !== "HEAD") {
      checkStrictJson(await c.req.text());
    }
    await next();
  };
}
