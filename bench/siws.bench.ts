/**
 * `@verifiable-memory/siws-message` throughput: building and strictly parsing one sign-in message (docs/protocol.md
 * §2), beside raw work on the same nine lines measured in the same run: a template-literal
 * build plus `split("\n")`, a JSON.stringify/JSON.parse round trip of the fields object, and one
 * node:crypto SHA-256 of the message text (the package set's common raw baseline).
 * Size: 20 000 operations per timed run, 15 runs, median reported (about 10 s in all).
 * @module
 */

import { createHash } from "node:crypto";
import {
  buildSignInMessage,
  formatTimestamp,
  generateNonce,
  parseSignInMessage,
  SIGN_IN_TTL_MS,
  type SignInMessageFields,
  signInStatement,
} from "@verifiable-memory/siws-message";
import { median, printFigures, timeRuns } from "./lib.js";

const OPS = 20_000;
const REPS = 15;
/** Distinct messages (fresh nonces) cycled through, so no work is hoisted out of the loop. */
const VARIANTS = 64;

/** Ops/s of `op(i)` (i cycles over the variants) run OPS times per timed run (median of REPS runs). */
async function opsPerSecond(op: (i: number) => number): Promise<number> {
  let sink = 0;
  const runs = await timeRuns(() => {
    for (let i = 0; i < OPS; i++) {
      sink += op(i & (VARIANTS - 1));
    }
  }, REPS);
  if (sink === 0) {
    throw new Error("benchmark produced nothing");
  }
  return OPS / (median(runs) / 1000);
}

/** Runs the sign-in message benchmark and prints its figures. */
export async function run(): Promise<void> {
  const issued = new Date(Date.UTC(2026, 10, 22, 10));
  const messages: SignInMessageFields[] = Array.from({ length: VARIANTS }, () => ({
    domain: "example.com",
    address: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    statement: signInStatement("Acme Memory"),
    uri: "https://example.com",
    version: "1",
    chainId: "devnet",
    nonce: generateNonce(),
    issuedAt: formatTimestamp(issued),
    expirationTime: formatTimestamp(new Date(issued.getTime() + SIGN_IN_TTL_MS)),
  }));
  const fields = (i: number) => messages[i] as SignInMessageFields;
  const texts = messages.map(buildSignInMessage);
  const jsons = messages.map((m) => JSON.stringify(m));

  const rawBuild = (f: SignInMessageFields) =>
    `${f.domain} wants you to sign in with your Solana account:\n${f.address}\n\n${f.statement}\n\nURI: ${f.uri}\nVersion: ${f.version}\nChain ID: ${f.chainId}\nNonce: ${f.nonce}\nIssued At: ${f.issuedAt}\nExpiration Time: ${f.expirationTime}`;
  // Reading the last character flattens V8's concatenation rope, so both sides build the string.
  const last = (s: string) => s.charCodeAt(s.length - 1);

  const ours = await opsPerSecond(
    (i) => parseSignInMessage(buildSignInMessage(fields(i))).nonce.length,
  );
  const rawSplit = await opsPerSecond((i) => rawBuild(fields(i)).split("\n").length);
  const rawJson = await opsPerSecond(
    (i) => (JSON.parse(JSON.stringify(fields(i))) as SignInMessageFields).nonce.length,
  );
  const build = await opsPerSecond((i) => last(buildSignInMessage(fields(i))));
  const rawTemplate = await opsPerSecond((i) => last(rawBuild(fields(i))));
  const parse = await opsPerSecond((i) => parseSignInMessage(texts[i] as string).nonce.length);
  const rawSha256 = await opsPerSecond(
    (i) =>
      createHash("sha256")
        .update(texts[i] as string)
        .digest().length,
  );
  const rawJsonParse = await opsPerSecond(
    (i) => (JSON.parse(jsons[i] as string) as SignInMessageFields).nonce.length,
  );

  printFigures(`siws-message (${OPS.toLocaleString("en-US")} ops per run, median of ${REPS})`, [
    {
      name: "build + strict parse, one message",
      value: ours,
      baseline: rawSplit,
      unit: "ops/s",
      baselineName: "template + split",
    },
    {
      name: "build + strict parse, one message",
      value: ours,
      baseline: rawJson,
      unit: "ops/s",
      baselineName: "JSON stringify + parse",
    },
    {
      name: "build + strict parse, one message",
      value: ours,
      baseline: rawSha256,
      unit: "ops/s",
      baselineName: "node:crypto SHA-256 of the message",
    },
    {
      name: "build (validated)",
      value: build,
      baseline: rawTemplate,
      unit: "ops/s",
      baselineName: "template literal",
    },
    {
      name: "strict parse",
      value: parse,
      baseline: rawJsonParse,
      unit: "ops/s",
      baselineName: "JSON.parse",
    },
  ]);
}
