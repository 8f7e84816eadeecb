/**
 * The sign-in message (SIWS: EIP-4361 as adopted by the Solana wallet standard): build the exact
 * text the server issues and the wallet signs, and parse it back strictly. The text is the signed
 * bytes, so there is exactly one accepted layout: 11 LF-separated lines (9 fields and 2 blank
 * lines), no trailing newline, no optional fields.
 *
 * Sources: docs/protocol.md §2.2 "The message"; docs/protocol.md §2; the reference
 * implementation `createSignInMessageText` / `parseSignInMessageText` of
 * `@solana/wallet-standard-util` (whose output for these nine fields is identical).
 * @module
 */
import { FIELD_NAMES, FIELD_PROBLEM, type SignInMessageFields } from "./_fields.js";

/** Challenge lifetime: Expiration Time is Issued At plus 5 minutes (docs/protocol.md §2), in ms. */
export const SIGN_IN_TTL_MS = 5 * 60 * 1000;

const HEADER_SUFFIX = " wants you to sign in with your Solana account:";

/** Thrown by {@link buildSignInMessage} when a field value is not acceptable. */
export class SignInMessageFieldError extends Error {
  override readonly name = "SignInMessageFieldError";
  /** The offending field. */
  readonly field: keyof SignInMessageFields;
  /** Why its value was rejected. */
  readonly reason: string;

  constructor(field: keyof SignInMessageFields, reason: string) {
    super(`invalid sign-in field ${field}: ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

/** Thrown by {@link parseSignInMessage} on text that is not exactly a sign-in message. */
export class SignInMessageParseError extends Error {
  override readonly name = "SignInMessageParseError";
  /** 1-based physical line of the text (blank lines count; the header is line 1). */
  readonly line: number;
  /** Why that line was rejected. */
  readonly reason: string;

  constructor(line: number, reason: string) {
    super(`malformed sign-in message, line ${line}: ${reason}`);
    this.line = line;
    this.reason = reason;
  }
}

/** One physical line: a blank line (`field` null) or `prefix + value + suffix`. */
interface LineLayout {
  readonly field: keyof SignInMessageFields | null;
  readonly prefix: string;
  readonly suffix: string;
  /** How the line should look, for error reasons. */
  readonly shape: string;
}

const BLANK: LineLayout = { field: null, prefix: "", suffix: "", shape: "a blank line" };
const LAYOUT: readonly LineLayout[] = [
  { field: "domain", prefix: "", suffix: HEADER_SUFFIX, shape: `"<domain>${HEADER_SUFFIX}"` },
  { field: "address", prefix: "", suffix: "", shape: "the base58 public key" },
  BLANK,
  { field: "statement", prefix: "", suffix: "", shape: "the statement" },
  BLANK,
  { field: "uri", prefix: "URI: ", suffix: "", shape: '"URI: <uri>"' },
  { field: "version", prefix: "Version: ", suffix: "", shape: '"Version: 1"' },
  { field: "chainId", prefix: "Chain ID: ", suffix: "", shape: '"Chain ID: <chain id>"' },
  { field: "nonce", prefix: "Nonce: ", suffix: "", shape: '"Nonce: <nonce>"' },
  { field: "issuedAt", prefix: "Issued At: ", suffix: "", shape: '"Issued At: <timestamp>"' },
  {
    field: "expirationTime",
    prefix: "Expiration Time: ",
    suffix: "",
    shape: '"Expiration Time: <timestamp>"',
  },
];

/**
 * The statement the service signs users in with (docs/protocol.md §2, line 3).
 * @param serviceName - the configured `SERVICE_NAME`: non-empty, one line, no surrounding
 * whitespace.
 * @returns `Sign in to <serviceName> - verifiable memory for AI agents.`
 * @throws TypeError when `serviceName` is not a string; RangeError when the statement would not
 * be a valid single line.
 * @example
 * signInStatement("Acme Memory"); // "Sign in to Acme Memory - verifiable memory for AI agents."
 */
export function signInStatement(serviceName: string): string {
  if (typeof serviceName !== "string") {
    throw new TypeError("serviceName must be a string");
  }
  if (serviceName.length === 0) {
    throw new RangeError("serviceName must not be empty");
  }
  const statement = `Sign in to ${serviceName} - verifiable memory for AI agents.`;
  const problem = FIELD_PROBLEM.statement(statement);
  if (problem !== undefined || serviceName.trim() !== serviceName) {
    throw new RangeError(
      "serviceName must be one line without control characters or surrounding whitespace",
    );
  }
  return statement;
}

/**
 * Builds the exact sign-in message text (docs/protocol.md §2): 11 lines joined by LF, no trailing
 * newline. Byte-for-byte the text `createSignInMessageText` of `@solana/wallet-standard-util`
 * produces for the same fields. Does not compare the two timestamps: the caller sets
 * `expirationTime` (normally `issuedAt` + {@link SIGN_IN_TTL_MS}).
 * @param fields - the nine field values; each must satisfy the rule on its
 * {@link SignInMessageFields} property (address 32 bytes and nonce 16 bytes of base58, strict
 * timestamps, no line breaks anywhere).
 * @returns the message text.
 * @throws SignInMessageFieldError naming the first invalid field (in message order).
 * @throws TypeError when `fields` is not an object or a field is not a string.
 * @example
 * buildSignInMessage({
 *   domain: "example.com",
 *   address: "11111111111111111111111111111111",
 *   statement: signInStatement("Acme Memory"),
 *   uri: "https://example.com",
 *   version: "1",
 *   chainId: "devnet",
 *   nonce: generateNonce(),
 *   issuedAt: "2026-11-22T10:00:00.000Z",
 *   expirationTime: "2026-11-22T10:05:00.000Z",
 * });
 */
export function buildSignInMessage(fields: SignInMessageFields): string {
  if (typeof fields !== "object" || fields === null) {
    throw new TypeError("fields must be an object");
  }
  for (const name of FIELD_NAMES) {
    const value: unknown = fields[name];
    if (typeof value !== "string") {
      throw new TypeError(`fields.${name} must be a string`);
    }
    const problem = FIELD_PROBLEM[name](value);
    if (problem !== undefined) {
      throw new SignInMessageFieldError(name, problem);
    }
  }
  return `${fields.domain}${HEADER_SUFFIX}
${fields.address}

${fields.statement}

URI: ${fields.uri}
Version: ${fields.version}
Chain ID: ${fields.chainId}
Nonce: ${fields.nonce}
Issued At: ${fields.issuedAt}
Expiration Time: ${fields.expirationTime}`;
}

/**
 * Parses a sign-in message strictly: only text that {@link buildSignInMessage} could have
 * produced is accepted, so `buildSignInMessage(parseSignInMessage(t)) === t` for every accepted
 * `t`. Rejected, among others: CRLF or a stray CR, leading or trailing whitespace on any line,
 * lines out of order, missing or extra lines, missing blank lines, a trailing newline, a chain
 * other than Solana, a public key that is not 32 bytes of base58, a nonce that is not 16 bytes of
 * base58, Version other than 1, and timestamps not in exact `YYYY-MM-DDTHH:mm:ss.sssZ` form or
 * not a real date. Does not check the address against a key or the times against a clock
 * (docs/protocol.md §2 verification order: those are later steps).
 * @param text - the message text (decoded from the signed UTF-8 bytes).
 * @returns the nine fields.
 * @throws SignInMessageParseError with the 1-based physical `line` (blank lines count) and a
 * `reason`, for the first offending line.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseSignInMessage(buildSignInMessage(fields)); // deep-equals fields
 */
export function parseSignInMessage(text: string): SignInMessageFields {
  if (typeof text !== "string") {
    throw new TypeError("text must be a string");
  }
  const lines = text.split("\n");
  const values: Partial<Record<keyof SignInMessageFields, string>> = {};
  for (const [index, layout] of LAYOUT.entries()) {
    const lineNumber = index + 1;
    const line = lines[index];
    if (line === undefined) {
      throw new SignInMessageParseError(lineNumber, `missing line, expected ${layout.shape}`);
    }
    if (line.includes("\r")) {
      throw new SignInMessageParseError(lineNumber, "carriage return (lines must end in LF only)");
    }
    if (/^\s/u.test(line)) {
      throw new SignInMessageParseError(lineNumber, "leading whitespace");
    }
    if (/\s$/u.test(line)) {
      throw new SignInMessageParseError(lineNumber, "trailing whitespace");
    }
    if (layout.field === null) {
      if (line !== "") {
        throw new SignInMessageParseError(lineNumber, `expected ${layout.shape}`);
      }
      continue;
    }
    if (
      !line.startsWith(layout.prefix) ||
      !line.endsWith(layout.suffix) ||
      line.length < layout.prefix.length + layout.suffix.length
    ) {
      throw new SignInMessageParseError(lineNumber, `expected ${layout.shape}`);
    }
    const value = line.slice(layout.prefix.length, line.length - layout.suffix.length);
    const problem = FIELD_PROBLEM[layout.field](value);
    if (problem !== undefined) {
      throw new SignInMessageParseError(lineNumber, problem);
    }
    values[layout.field] = value;
  }
  if (lines.length > LAYOUT.length) {
    const extra = lines.length === LAYOUT.length + 1 && lines[LAYOUT.length] === "";
    throw new SignInMessageParseError(
      LAYOUT.length + 1,
      extra ? "trailing newline after the last line" : "unexpected line after Expiration Time",
    );
  }
  return {
    domain: values.domain as string,
    address: values.address as string,
    statement: values.statement as string,
    uri: values.uri as string,
    version: "1",
    chainId: values.chainId as string,
    nonce: values.nonce as string,
    issuedAt: values.issuedAt as string,
    expirationTime: values.expirationTime as string,
  };
}
