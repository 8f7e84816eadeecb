/**
 * Differential test against the reference implementation: the Solana wallet standard's
 * `createSignInMessageText` / `parseSignInMessage` (docs/protocol.md §2: "the message grammar follows
 * the EIP-4361 structured format as adopted by the wallet standard").
 *
 * Oracle: `@solana/wallet-standard-util` 1.1.4 (devDependency of this package only; ESM entry
 * `lib/esm/index.js`, source `src/signIn.ts`, https://github.com/anza-xyz/wallet-standard,
 * packages/core/util). It takes a `SolanaSignInInput` from `@solana/wallet-standard-features`
 * (all fields optional strings; `domain` and `address` required by these two functions).
 * @module
 */
import type { SolanaSignInInputWithRequiredFields } from "@solana/wallet-standard-util";
import {
  createSignInMessageText,
  parseSignInMessage as oracleParseSignInMessage,
} from "@solana/wallet-standard-util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSignInMessage, parseSignInMessage, type SignInMessageFields } from "../src/index.js";
import { fieldsArb } from "./_arbitraries.js";

/** Our fields as the oracle's input (same EIP-4361 names; no Not Before, Request ID, Resources). */
function toOracleInput(fields: SignInMessageFields): SolanaSignInInputWithRequiredFields {
  return {
    domain: fields.domain,
    address: fields.address,
    statement: fields.statement,
    uri: fields.uri,
    version: fields.version,
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: fields.issuedAt,
    expirationTime: fields.expirationTime,
  };
}

describe("oracle: @solana/wallet-standard-util", () => {
  it("agrees with our builder and parser on 500 random service messages", () => {
    fc.assert(
      fc.property(fieldsArb, (fields) => {
        const ours = buildSignInMessage(fields);
        const oracleText = createSignInMessageText(toOracleInput(fields));
        expect(ours).toBe(oracleText);

        expect(parseSignInMessage(oracleText)).toStrictEqual(fields);

        // The oracle parses the signed bytes (UTF-8), as a wallet would.
        const parsed = oracleParseSignInMessage(new TextEncoder().encode(ours));
        expect(parsed).not.toBeNull();
        const { notBefore, requestId, resources, ...rest } =
          parsed as SolanaSignInInputWithRequiredFields;
        expect(rest).toStrictEqual(fields);
        expect([notBefore, requestId, resources]).toStrictEqual([undefined, undefined, undefined]);
      }),
      { numRuns: 500 },
    );
  });

  it("the oracle also accepts a Not Before line, which our strict parser rejects at line 12", () => {
    fc.assert(
      fc.property(fieldsArb, (fields) => {
        const withNotBefore = createSignInMessageText({
          ...toOracleInput(fields),
          notBefore: fields.issuedAt,
        });
        expect(oracleParseSignInMessage(new TextEncoder().encode(withNotBefore))).not.toBeNull();
        expect(() => parseSignInMessage(withNotBefore)).toThrow(/line 12: unexpected line/);
      }),
      { numRuns: 50 },
    );
  });
});
