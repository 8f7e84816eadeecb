/**
 * envelope-crypto: decrypts/s and encrypts/s of 200-byte memory bodies (100 000 records by
 * default; ENVELOPE_BENCH_RECORDS overrides) through decryptBody and encryptBody, each beside
 * raw node:crypto AES-256-GCM on the same records in the same run. The records are timed in
 * chunks of 10 000, ours and raw interleaved chunk by chunk, and the figure is the median
 * chunk rate, so load from other processes on this shared machine hits both sides alike.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from "node:crypto";
import {
  type BodyContext,
  decryptBody,
  encryptBody,
  generateDataKey,
  type SealedBody,
} from "@verifiable-memory/envelope-crypto";
import { median, printFigures, rawBodyAad, timeRuns } from "./lib.js";

const RECORDS = Number(process.env.ENVELOPE_BENCH_RECORDS ?? 100_000);
const BODY_BYTES = 200;
const CHUNK = 10_000;
const DECRYPT_PASSES = 5;
const ENCRYPT_PASSES = 3;

/**
 * Times every case on each chunk of records in turn (ours, raw, ours, raw, …), `passes` times
 * over all records after one untimed pass; returns each case's median chunk rate in records/s.
 */
async function interleaved(
  cases: Record<string, (start: number, end: number) => void>,
  passes: number,
): Promise<Record<string, number>> {
  const rates: Record<string, number[]> = {};
  for (let pass = 0; pass < passes; pass++) {
    for (let start = 0; start < RECORDS; start += CHUNK) {
      const end = Math.min(RECORDS, start + CHUNK);
      for (const [name, fn] of Object.entries(cases)) {
        const warmup = pass === 0 && start === 0 ? 1 : 0;
        const [ms] = await timeRuns(() => fn(start, end), 1, warmup);
        rates[name] = [...(rates[name] ?? []), ((end - start) / (ms as number)) * 1000];
      }
    }
  }
  return Object.fromEntries(Object.entries(rates).map(([name, list]) => [name, median(list)]));
}

export async function run(): Promise<void> {
  const key = generateDataKey();
  const userId = randomUUID();
  const contexts: BodyContext[] = Array.from({ length: RECORDS }, () => ({
    userId,
    memoryId: randomUUID(),
  }));
  const plaintexts = contexts.map(() => randomBytes(BODY_BYTES));
  const sealed: SealedBody[] = contexts.map((c, i) => encryptBody(key, plaintexts[i] as Buffer, c));
  const aads = contexts.map(rawBodyAad);

  // The raw baseline opens the very same records with the AAD prebuilt (the floor of the work).
  const rawOpen = (i: number): Buffer => {
    const { ciphertext, iv } = sealed[i] as SealedBody;
    const split = ciphertext.length - 16;
    const d = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: 16 });
    d.setAAD(aads[i] as Buffer);
    d.setAuthTag(ciphertext.subarray(split));
    const body = d.update(ciphertext.subarray(1, split));
    d.final();
    return body;
  };
  if (!rawOpen(0).equals(plaintexts[0] as Buffer)) {
    throw new Error("raw baseline does not open our records");
  }

  const decrypts = await interleaved(
    {
      decryptBody: (start, end) => {
        for (let i = start; i < end; i++) {
          decryptBody(key, sealed[i] as SealedBody, contexts[i] as BodyContext);
        }
      },
      raw: (start, end) => {
        for (let i = start; i < end; i++) {
          rawOpen(i);
        }
      },
    },
    DECRYPT_PASSES,
  );

  const encrypts = await interleaved(
    {
      encryptBody: (start, end) => {
        for (let i = start; i < end; i++) {
          encryptBody(key, plaintexts[i] as Buffer, contexts[i] as BodyContext);
        }
      },
      raw: (start, end) => {
        for (let i = start; i < end; i++) {
          const c = createCipheriv("aes-256-gcm", key, randomBytes(12), { authTagLength: 16 });
          c.setAAD(aads[i] as Buffer);
          Buffer.concat([
            Buffer.of(1),
            c.update(plaintexts[i] as Buffer),
            c.final(),
            c.getAuthTag(),
          ]);
        }
      },
    },
    ENCRYPT_PASSES,
  );

  const rawDecrypt = "raw createDecipheriv, AAD prebuilt";
  printFigures(
    `envelope-crypto (${BODY_BYTES}-byte bodies, ${RECORDS.toLocaleString("en-US")} records)`,
    [
      {
        name: "decryptBody",
        value: decrypts.decryptBody as number,
        baseline: decrypts.raw as number,
        unit: "records/s",
        baselineName: rawDecrypt,
      },
      {
        name: "encryptBody (incl. random IV)",
        value: encrypts.encryptBody as number,
        baseline: encrypts.raw as number,
        unit: "records/s",
        baselineName: "raw createCipheriv + randomBytes(12) IV",
      },
    ],
  );
}
