/**
 * fast-check generators of valid sign-in message fields, shared by the property and oracle
 * tests (docs/protocol.md §2.2 "The message"; docs/protocol.md §2 for the chain IDs).
 * @module
 */
import fc from "fast-check";
import {
  base58Encode,
  formatTimestamp,
  SIGN_IN_TTL_MS,
  type SignInMessageFields,
  signInStatement,
} from "../src/index.js";

/** Domains: the deployments' usual forms plus random DNS names, with or without a port. */
export const domainArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("example.com", "localhost:8787", "memory.example.org", "127.0.0.1:8787"),
  fc.domain(),
  fc
    .tuple(fc.domain(), fc.integer({ min: 1, max: 65_535 }))
    .map(([host, port]) => `${host}:${port}`),
);

/** `n` random bytes, sometimes starting with zero bytes (leading `1`s in base58). */
export function bytesArb(n: number): fc.Arbitrary<Uint8Array> {
  return fc
    .tuple(fc.uint8Array({ minLength: n, maxLength: n }), fc.nat({ max: 3 }))
    .map(([bytes, zeros]) => {
      bytes.fill(0, 0, zeros);
      return bytes;
    });
}

/** Service names that make a valid statement: ASCII words, or any Unicode the rules allow. */
export const serviceNameArb: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9.'&-]{0,11}$/), { minLength: 1, maxLength: 4 })
    .map((words) => words.join(" ")),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((name) => {
    try {
      signInStatement(name);
      return true;
    } catch {
      return false;
    }
  }),
);

/** URIs: the service base URL of a domain, or any web URL fast-check builds. */
export const uriArb: fc.Arbitrary<string> = fc.oneof(
  domainArb.map((domain) => `https://${domain}`),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
);

/** The chain IDs `SIWS_CHAIN_ID` accepts (docs/protocol.md §2). */
export const chainIdArb: fc.Arbitrary<string> = fc.constantFrom(
  "mainnet",
  "devnet",
  "testnet",
  "localnet",
);

/** Instants between 2000 and 2100, to the millisecond. */
export const dateArb: fc.Arbitrary<Date> = fc.date({
  min: new Date("2000-01-01T00:00:00.000Z"),
  max: new Date("2100-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});

/** Complete, valid fields as the service issues them (expiry = issue time + 5 minutes). */
export const fieldsArb: fc.Arbitrary<SignInMessageFields> = fc
  .record({
    domain: domainArb,
    address: bytesArb(32).map(base58Encode),
    statement: serviceNameArb.map(signInStatement),
    uri: uriArb,
    chainId: chainIdArb,
    nonce: bytesArb(16).map(base58Encode),
    issued: dateArb,
  })
  .map(({ issued, ...rest }) => ({
    ...rest,
    version: "1" as const,
    issuedAt: formatTimestamp(issued),
    expirationTime: formatTimestamp(new Date(issued.getTime() + SIGN_IN_TTL_MS)),
  }));
