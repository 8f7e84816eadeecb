/**
 * Round-trip properties (fast-check) and known answers for the building blocks: the message
 * (parse ∘ build = id), nonces (16 random bytes, base58, distinct), base58 (Bitcoin Core's
 * vectors) and strict timestamps (docs/protocol.md §2, §1 encodings).
 * @module
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Base58DecodeError,
  base58Decode,
  base58Encode,
  buildSignInMessage,
  formatTimestamp,
  generateNonce,
  NONCE_BYTES,
  parseSignInMessage,
  parseTimestamp,
  SignInMessageParseError,
  TimestampParseError,
} from "../src/index.js";
import { bytesArb, fieldsArb } from "./_arbitraries.js";
import bitcoinVectors from "./vectors/base58_encode_decode.json" with { type: "json" };

describe("message round trip", () => {
  it("parse(build(m)) deep-equals m, and build(parse(t)) === t", () => {
    fc.assert(
      fc.property(fieldsArb, (fields) => {
        const text = buildSignInMessage(fields);
        const parsed = parseSignInMessage(text);
        expect(parsed).toStrictEqual(fields);
        expect(buildSignInMessage(parsed)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("rejects every message with one character deleted", () => {
    fc.assert(
      fc.property(fieldsArb, fc.nat(), (fields, at) => {
        const text = buildSignInMessage(fields);
        const i = at % text.length;
        const cut = text.slice(0, i) + text.slice(i + 1);
        // Deleting a character inside a free-form statement, URI or domain can leave a valid
        // message; anything it parses to must then differ from the original fields.
        let parsed: unknown;
        try {
          parsed = parseSignInMessage(cut);
        } catch (error) {
          expect(error).toBeInstanceOf(SignInMessageParseError);
          return;
        }
        expect(parsed).not.toStrictEqual(fields);
      }),
      { numRuns: 300 },
    );
  });
});

describe("generateNonce", () => {
  it("draws 16 bytes of base58, all distinct", () => {
    const nonces = Array.from({ length: 2_000 }, () => generateNonce());
    for (const nonce of nonces) {
      expect(base58Decode(nonce)).toHaveLength(NONCE_BYTES);
    }
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("encodes exactly the injected bytes", () => {
    fc.assert(
      fc.property(bytesArb(16), (bytes) => {
        const requested: number[] = [];
        const nonce = generateNonce((length) => {
          requested.push(length);
          return bytes.slice();
        });
        expect(requested).toStrictEqual([16]);
        expect(base58Decode(nonce)).toStrictEqual(bytes);
      }),
    );
    expect(generateNonce(() => new Uint8Array(16))).toBe("1111111111111111");
  });

  it("rejects a random source with the wrong output", () => {
    expect(() => generateNonce(() => new Uint8Array(15))).toThrow(RangeError);
    expect(() => generateNonce(() => [1, 2] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => generateNonce("x" as unknown as () => Uint8Array)).toThrow(TypeError);
  });
});

describe("base58", () => {
  const hexToBytes = (hex: string) =>
    Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));

  it.each(bitcoinVectors.vectors)("Bitcoin Core vector %s ↔ %s", (hex, text) => {
    expect(base58Encode(hexToBytes(hex))).toBe(text);
    expect(base58Decode(text)).toStrictEqual(hexToBytes(hex));
  });

  it("decode(encode(b)) equals b, including leading zero bytes", () => {
    fc.assert(
      fc.property(fc.nat({ max: 4 }), fc.uint8Array({ maxLength: 64 }), (zeros, tail) => {
        const bytes = new Uint8Array([...new Uint8Array(zeros), ...tail]);
        const text = base58Encode(bytes);
        expect(text.startsWith("1".repeat(zeros))).toBe(true);
        expect(base58Decode(text)).toStrictEqual(bytes);
      }),
    );
  });

  it.each([
    ["0", 0],
    ["abcO", 3],
    ["abIc", 2],
    ["l", 0],
    ["ab c", 2],
    ["abé", 2],
    ["a\n", 1],
  ])("rejects %j at index %i", (text, index) => {
    let caught: unknown;
    try {
      base58Decode(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Base58DecodeError);
    expect((caught as Base58DecodeError).index).toBe(index);
  });

  it("rejects non-Uint8Array and non-string input with TypeError", () => {
    expect(() => base58Encode([1, 2] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => base58Decode(12 as unknown as string)).toThrow(TypeError);
  });
});

describe("timestamps", () => {
  it("formats and parses every millisecond instant of years 0000–9999", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0000-01-01T00:00:00.000Z"),
          max: new Date("9999-12-31T23:59:59.999Z"),
          noInvalidDate: true,
        }),
        (date) => {
          const text = formatTimestamp(date);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          expect(parseTimestamp(text).getTime()).toBe(date.getTime());
        },
      ),
    );
  });

  it("accepts a digit-shaped timestamp exactly when Date round-trips it", () => {
    const pad = (n: number, width: number) => String(n).padStart(width, "0");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        (y, mo, d, h, mi, s, ms) => {
          const text = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`;
          const date = new Date(text);
          const real = !Number.isNaN(date.getTime()) && date.toISOString() === text;
          let accepted = true;
          try {
            parseTimestamp(text);
          } catch {
            accepted = false;
          }
          expect(accepted).toBe(real);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("formats a known instant", () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 10, 22, 10)))).toBe("2026-11-22T10:00:00.000Z");
    expect(parseTimestamp("2024-02-29T23:59:59.999Z").getTime()).toBe(
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    );
  });

  it.each([
    "2026-11-22T10:00:00Z",
    "2026-11-22T10:00:00.0Z",
    "2026-11-22T10:00:00.0000Z",
    "2026-11-22T10:00:00.000+00:00",
    "2026-11-22T10:00:00.000",
    "2026-11-22 10:00:00.000Z",
    "2026-11-22t10:00:00.000Z",
    " 2026-11-22T10:00:00.000Z",
    "2026-02-30T00:00:00.000Z",
    "2025-02-29T00:00:00.000Z",
    "2026-13-01T00:00:00.000Z",
    "2026-11-22T24:00:00.000Z",
    "2026-06-30T23:59:60.000Z",
    "+012026-11-22T10:00:00.000Z",
  ])("parseTimestamp rejects %j", (text) => {
    expect(() => parseTimestamp(text)).toThrow(TimestampParseError);
  });

  it("formatTimestamp rejects invalid dates and years ISO 8601 cannot write in 4 digits", () => {
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatTimestamp(new Date(Date.UTC(10_000, 0, 1)))).toThrow(RangeError);
    expect(() => formatTimestamp(new Date(Date.UTC(-1, 0, 1)))).toThrow(RangeError);
    expect(() => formatTimestamp("2026-11-22" as unknown as Date)).toThrow(TypeError);
  });
});
