/**
 * Known-answer tables for the sign-in message (docs/protocol.md §2.2 "The message"): positive `{
 * text, parsed }` round trips (as in wallet-standard's tests) and a negative parsing table (as in
 * siwe's `parsing_negative.json`) where each variant names the line the parser must blame. Line
 * numbers are physical: the header is line 1, blank lines count.
 * @module
 */
import { describe, expect, it } from "vitest";
import {
  buildSignInMessage,
  parseSignInMessage,
  SIGN_IN_TTL_MS,
  SignInMessageFieldError,
  type SignInMessageFields,
  SignInMessageParseError,
  signInStatement,
} from "../src/index.js";

const FIELDS: SignInMessageFields = {
  domain: "example.com",
  address: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  statement: "Sign in to Acme Memory - verifiable memory for AI agents.",
  uri: "https://example.com",
  version: "1",
  chainId: "devnet",
  nonce: "8DfbjXLth7APvt3qQPgtf",
  issuedAt: "2026-11-22T10:00:00.000Z",
  expirationTime: "2026-11-22T10:05:00.000Z",
};

const TEXT = `example.com wants you to sign in with your Solana account:
9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM

Sign in to Acme Memory - verifiable memory for AI agents.

URI: https://example.com
Version: 1
Chain ID: devnet
Nonce: 8DfbjXLth7APvt3qQPgtf
Issued At: 2026-11-22T10:00:00.000Z
Expiration Time: 2026-11-22T10:05:00.000Z`;

const POSITIVE: readonly { desc: string; text: string; parsed: SignInMessageFields }[] = [
  {
    desc: "the service's message (docs/protocol.md §2 example values)",
    text: TEXT,
    parsed: FIELDS,
  },
  {
    desc: "all-zero key and nonce, port, query and fragment, Unicode statement, edge times",
    text: [
      "localhost:8787 wants you to sign in with your Solana account:",
      "11111111111111111111111111111111",
      "",
      "Sign in to Mémoire 記憶 - verifiable memory for AI agents.",
      "",
      "URI: http://localhost:8787/auth?x=1#y",
      "Version: 1",
      "Chain ID: localnet",
      "Nonce: 1111111111111111",
      "Issued At: 2000-01-01T00:00:00.000Z",
      "Expiration Time: 2099-12-31T23:59:59.999Z",
    ].join("\n"),
    parsed: {
      domain: "localhost:8787",
      address: "11111111111111111111111111111111",
      statement: "Sign in to Mémoire 記憶 - verifiable memory for AI agents.",
      uri: "http://localhost:8787/auth?x=1#y",
      version: "1",
      chainId: "localnet",
      nonce: "1111111111111111",
      issuedAt: "2000-01-01T00:00:00.000Z",
      expirationTime: "2099-12-31T23:59:59.999Z",
    },
  },
  {
    desc: "IPv6 authority and a CAIP-2 style chain token",
    text: TEXT.replace("example.com wants", "[::1]:8787 wants").replace(
      "Chain ID: devnet",
      "Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    ),
    parsed: { ...FIELDS, domain: "[::1]:8787", chainId: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" },
  },
];

describe("positive table", () => {
  it.each(POSITIVE)("$desc: build gives the text, parse gives the fields", ({ text, parsed }) => {
    expect(buildSignInMessage(parsed)).toBe(text);
    expect(parseSignInMessage(text)).toStrictEqual(parsed);
  });

  it("lays out 11 LF-separated lines with blanks at 3 and 5 and no trailing newline", () => {
    const lines = buildSignInMessage(FIELDS).split("\n");
    expect(lines).toHaveLength(11);
    expect([lines[2], lines[4]]).toStrictEqual(["", ""]);
    expect(buildSignInMessage(FIELDS).endsWith("\n")).toBe(false);
  });
});

/** Replaces physical line `n` (1-based) of the valid text. */
function withLine(n: number, line: string): string {
  const lines = TEXT.split("\n");
  lines[n - 1] = line;
  return lines.join("\n");
}

/** Removes physical line `n` (1-based) of the valid text. */
function withoutLine(n: number): string {
  return TEXT.split("\n")
    .filter((_, i) => i !== n - 1)
    .join("\n");
}

/** Swaps physical lines `a` and `b` (1-based) of the valid text. */
function swapped(a: number, b: number): string {
  const lines = TEXT.split("\n");
  const [la, lb] = [lines[a - 1] as string, lines[b - 1] as string];
  lines[a - 1] = lb;
  lines[b - 1] = la;
  return lines.join("\n");
}

const KEY_31 = "7DUeBUtEcb7nujVZRJmeBju3X1mo6PpnWNtJ9EBhdY"; // 31 × 0x07
const KEY_33 = "365efUdXGhRExyDEUeKXWPg1zTZyfvuJQJDLsS7JZqzyt"; // 33 × 0x07
const NONCE_15 = "FfMKmrZyhYSmFKgSfTmA"; // 15 × 0x09
const NONCE_17 = `${"1".repeat(16)}2`; // 16 × 0x00, 0x01
const NONCE_LONG = "5vdAKMbe5NxpmGyxAGZjRzG"; // 17 × 0x09: 23 characters

const NEGATIVE: readonly { desc: string; text: string; line: number; reason: RegExp }[] = [
  { desc: "wrong order: Chain ID after Nonce", text: swapped(8, 9), line: 8, reason: /Chain ID/ },
  { desc: "wrong order: Version before URI", text: swapped(6, 7), line: 6, reason: /URI/ },
  { desc: "missing line: no Version", text: withoutLine(7), line: 7, reason: /Version/ },
  {
    desc: "missing line: no Expiration Time",
    text: withoutLine(11),
    line: 11,
    reason: /missing line/,
  },
  { desc: "missing line: empty text", text: "", line: 1, reason: /wants you to sign in/ },
  {
    desc: "extra line: Not Before appended",
    text: `${TEXT}\nNot Before: 2026-11-22T10:00:00.000Z`,
    line: 12,
    reason: /unexpected line/,
  },
  {
    desc: "extra line: Request ID inserted",
    text: TEXT.replace("\nIssued At", "\nRequest ID: 42\nIssued At"),
    line: 10,
    reason: /Issued At/,
  },
  {
    desc: "extra line: Resources section appended",
    text: `${TEXT}\nResources:\n- https://example.com/a`,
    line: 12,
    reason: /unexpected line/,
  },
  { desc: "trailing newline", text: `${TEXT}\n`, line: 12, reason: /trailing newline/ },
  { desc: "CRLF line endings", text: TEXT.replaceAll("\n", "\r\n"), line: 1, reason: /carriage/ },
  { desc: "one CR before LF", text: withLine(7, "Version: 1\r"), line: 7, reason: /carriage/ },
  {
    desc: "trailing space: Version",
    text: withLine(7, "Version: 1 "),
    line: 7,
    reason: /trailing/,
  },
  {
    desc: "trailing space: public key",
    text: withLine(2, `${FIELDS.address} `),
    line: 2,
    reason: /trailing/,
  },
  {
    desc: "trailing tab: header",
    text: withLine(1, `${TEXT.split("\n")[0]}\t`),
    line: 1,
    reason: /trailing/,
  },
  { desc: "space on a blank line", text: withLine(3, " "), line: 3, reason: /leading/ },
  {
    desc: "leading space: URI",
    text: withLine(6, " URI: https://example.com"),
    line: 6,
    reason: /leading/,
  },
  {
    desc: "leading space: statement",
    text: withLine(4, ` ${FIELDS.statement}`),
    line: 4,
    reason: /leading/,
  },
  {
    desc: "two spaces after a label",
    text: withLine(6, "URI:  https://example.com"),
    line: 6,
    reason: /URI must be/,
  },
  { desc: "bad public key: 31 bytes", text: withLine(2, KEY_31), line: 2, reason: /31 bytes/ },
  {
    desc: "bad public key: 33 bytes",
    text: withLine(2, `11${KEY_31}`),
    line: 2,
    reason: /33 bytes/,
  },
  { desc: "bad public key: 45 characters", text: withLine(2, KEY_33), line: 2, reason: /too long/ },
  {
    desc: "bad public key: invalid character 0",
    text: withLine(2, `0${FIELDS.address.slice(1)}`),
    line: 2,
    reason: /not base58/,
  },
  {
    desc: "bad public key: hex instead of base58",
    text: withLine(2, "ab".repeat(32)),
    line: 2,
    reason: /too long/,
  },
  {
    desc: "bad nonce: 15 bytes",
    text: withLine(9, `Nonce: ${NONCE_15}`),
    line: 9,
    reason: /15 bytes/,
  },
  {
    desc: "bad nonce: 17 bytes",
    text: withLine(9, `Nonce: ${NONCE_17}`),
    line: 9,
    reason: /17 bytes/,
  },
  {
    desc: "bad nonce: 23 characters",
    text: withLine(9, `Nonce: ${NONCE_LONG}`),
    line: 9,
    reason: /too long/,
  },
  {
    desc: "bad nonce: invalid character l",
    text: withLine(9, "Nonce: l8DfbjXLth7APvt3qQPg"),
    line: 9,
    reason: /not base58/,
  },
  { desc: "bad nonce: empty", text: withLine(9, "Nonce:"), line: 9, reason: /Nonce: <nonce>/ },
  {
    desc: "bad timestamp: no milliseconds",
    text: withLine(10, "Issued At: 2026-11-22T10:00:00Z"),
    line: 10,
    reason: /YYYY-MM-DD/,
  },
  {
    desc: "bad timestamp: non-UTC offset",
    text: withLine(10, "Issued At: 2026-11-22T10:00:00.000+01:00"),
    line: 10,
    reason: /YYYY-MM-DD/,
  },
  {
    desc: "bad timestamp: +00:00 instead of Z",
    text: withLine(11, "Expiration Time: 2026-11-22T10:05:00.000+00:00"),
    line: 11,
    reason: /YYYY-MM-DD/,
  },
  {
    desc: "bad timestamp: 2026-02-30 does not exist",
    text: withLine(11, "Expiration Time: 2026-02-30T10:05:00.000Z"),
    line: 11,
    reason: /real calendar date/,
  },
  {
    desc: "bad timestamp: hour 24",
    text: withLine(10, "Issued At: 2026-11-22T24:00:00.000Z"),
    line: 10,
    reason: /real calendar date/,
  },
  {
    desc: "bad timestamp: lowercase z",
    text: withLine(10, "Issued At: 2026-11-22T10:00:00.000z"),
    line: 10,
    reason: /YYYY-MM-DD/,
  },
  { desc: "Version: 2", text: withLine(7, "Version: 2"), line: 7, reason: /version must be "1"/ },
  { desc: "Version: 1.0", text: withLine(7, "Version: 1.0"), line: 7, reason: /version must be/ },
  {
    desc: "missing blank line between public key and statement",
    text: withoutLine(3),
    line: 3,
    reason: /blank line/,
  },
  {
    desc: "missing blank line between statement and URI",
    text: withoutLine(5),
    line: 5,
    reason: /blank line/,
  },
  {
    desc: "another chain named in the header",
    text: withLine(1, "example.com wants you to sign in with your Ethereum account:"),
    line: 1,
    reason: /Solana account/,
  },
  {
    desc: "domain with a space",
    text: withLine(1, "evil.com example.com wants you to sign in with your Solana account:"),
    line: 1,
    reason: /domain must be/,
  },
  {
    desc: "control character in the statement",
    text: withLine(4, "Sign in to Acme\u0007 Memory"),
    line: 4,
    reason: /control characters/,
  },
  {
    desc: "empty statement",
    text: withLine(4, ""),
    line: 4,
    reason: /statement must not be empty/,
  },
  {
    desc: "URI without scheme",
    text: withLine(6, "URI: example.com/x"),
    line: 6,
    reason: /URI must/,
  },
  { desc: "Chain ID empty", text: withLine(8, "Chain ID:"), line: 8, reason: /Chain ID/ },
  {
    desc: "Chain ID with a space",
    text: withLine(8, "Chain ID: dev net"),
    line: 8,
    reason: /chain ID must be/,
  },
  {
    desc: "label case differs",
    text: withLine(9, TEXT.split("\n")[8]?.toLowerCase() ?? ""),
    line: 9,
    reason: /Nonce/,
  },
];

describe("negative table: parseSignInMessage", () => {
  it.each(NEGATIVE)("$desc → line $line", ({ text, line, reason }) => {
    let caught: unknown;
    try {
      parseSignInMessage(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SignInMessageParseError);
    const error = caught as SignInMessageParseError;
    expect(error.line).toBe(line);
    expect(error.reason).toMatch(reason);
    expect(error.message).toContain(`line ${line}:`);
  });

  it("rejects a non-string with TypeError", () => {
    expect(() => parseSignInMessage(42 as unknown as string)).toThrow(TypeError);
  });
});

describe("buildSignInMessage validation", () => {
  const BAD: readonly { field: keyof SignInMessageFields; value: string; reason: RegExp }[] = [
    { field: "domain", value: "example.com\nevil.com", reason: /domain must be/ },
    { field: "domain", value: "", reason: /domain must be/ },
    { field: "address", value: KEY_31, reason: /31 bytes/ },
    { field: "address", value: "O".repeat(44), reason: /not base58/ },
    { field: "statement", value: "two\nlines", reason: /line breaks/ },
    { field: "statement", value: "trailing ", reason: /whitespace/ },
    { field: "uri", value: "https://example.com/a b", reason: /URI must be/ },
    { field: "version", value: "2", reason: /version must be "1"/ },
    { field: "chainId", value: "dev\nnet", reason: /chain ID must be/ },
    { field: "nonce", value: NONCE_15, reason: /15 bytes/ },
    { field: "issuedAt", value: "2026-11-22T10:00:00Z", reason: /issued-at time/ },
    { field: "expirationTime", value: "2026-02-30T00:00:00.000Z", reason: /real calendar date/ },
  ];

  it.each(BAD)("rejects $field = $value naming the field", ({ field, value, reason }) => {
    let caught: unknown;
    try {
      buildSignInMessage({ ...FIELDS, [field]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SignInMessageFieldError);
    expect((caught as SignInMessageFieldError).field).toBe(field);
    expect((caught as SignInMessageFieldError).reason).toMatch(reason);
  });

  it("names the first invalid field in message order", () => {
    const both = { ...FIELDS, nonce: "bad nonce", domain: "bad domain" };
    expect(() => buildSignInMessage(both)).toThrow(/field domain/);
  });

  it("throws TypeError on a non-object or a non-string field", () => {
    expect(() => buildSignInMessage(null as unknown as SignInMessageFields)).toThrow(TypeError);
    const numeric = { ...FIELDS, nonce: 7 } as unknown as SignInMessageFields;
    expect(() => buildSignInMessage(numeric)).toThrow(/fields\.nonce must be a string/);
  });
});

describe("signInStatement", () => {
  it("renders the spec's statement", () => {
    expect(signInStatement("Acme Memory")).toBe(
      "Sign in to Acme Memory - verifiable memory for AI agents.",
    );
  });

  it.each(["", " Acme", "Acme ", "Acme\nMemory", "Acme\u0000"])(
    "rejects service name %j with RangeError",
    (name) => {
      expect(() => signInStatement(name)).toThrow(RangeError);
    },
  );

  it("rejects a non-string with TypeError", () => {
    expect(() => signInStatement(undefined as unknown as string)).toThrow(TypeError);
  });
});

it("SIGN_IN_TTL_MS is five minutes", () => {
  expect(SIGN_IN_TTL_MS).toBe(300_000);
});
