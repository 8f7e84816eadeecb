/**
 * streamRecallSegments, the cold load's read of a user's segments over a binary COPY: every
 * column back byte for byte and in leaf order (ciphertexts larger than a socket read), scoped to
 * the user; a throwing callback rethrown once the stream is drained, the connection still usable;
 * and the binary COPY reader on a real stream cut into chunks of every size, refusing a wrong
 * signature, bytes after the trailer and a stream cut short; sealRecallSegment keeping a range sealed
 * as far and replacing a shorter (tail) segment at the same first leaf.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecallSegmentRow, sealRecallSegment, streamRecallSegments } from "../src/index.js";
import { CopyBinaryReader } from "../src/queries/_copy-binary.js";
import { clientOf } from "../src/queries/_prepared.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser } from "./_fixtures.js";

let t: TestDatabase;
beforeAll(async () => {
  // One connection: a stream left undrained would stall every later statement.
  t = await createTestDatabase({ max: 1 });
});
afterAll(async () => {
  await t.close();
});

/** Seals `[firstLeaf, endLeaf)` of the user with random bytes of `size`; returns what was stored. */
async function sealRandom(userId: string, firstLeaf: number, endLeaf: number, size: number) {
  const sealed = { format: 1, entries: endLeaf - firstLeaf, iv: randomBytes(12) };
  const ciphertext = randomBytes(size);
  expect(
    await sealRecallSegment(t.db, userId, { firstLeaf, endLeaf }, () => ({
      ...sealed,
      ciphertext,
    })),
  ).toBe(true);
  return { ...sealed, ciphertext, firstLeaf, endLeaf };
}

/** Every segment of one call, copied out of the callback. */
async function read(userId: string): Promise<RecallSegmentRow[]> {
  const rows: RecallSegmentRow[] = [];
  await streamRecallSegments(t.db, userId, (row) =>
    rows.push({ ...row, iv: Buffer.from(row.iv), ciphertext: Buffer.from(row.ciphertext) }),
  );
  return rows;
}

/** The raw bytes of a binary COPY of `select`. */
async function copyBytes(select: string): Promise<Buffer> {
  const client = clientOf(t.db);
  if (!client) {
    throw new Error("no client");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of await client
    .unsafe(`copy (${select}) to stdout (format binary)`)
    .readable()) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Tuples of `bytes` read in chunks of `size`, fields as hex (null stays null). */
function readInChunks(bytes: Buffer, size: number): (string | null)[][] {
  const reader = new CopyBinaryReader();
  const tuples: (string | null)[][] = [];
  for (let at = 0; at < bytes.length; at += size) {
    reader.push(bytes.subarray(at, at + size), (fields) =>
      tuples.push(fields.map((f) => (f === null ? null : f.toString("hex")))),
    );
  }
  reader.end();
  return tuples;
}

describe("streamRecallSegments", () => {
  it("hands out the user's segments in leaf order, every column byte for byte", async () => {
    const user = await makeUser(t.db);
    const other = await makeUser(t.db);
    const before = Date.now();
    // Sealed out of order; one far larger than a socket read (it arrives in many chunks).
    const second = await sealRandom(user.id, 4096, 8192, 3 * 1024 * 1024 + 7);
    const first = await sealRandom(user.id, 0, 4096, 1000);
    const empty = await sealRandom(user.id, 8192, 12288, 16);
    await sealRandom(other.id, 0, 4096, 500);
    const rows = await read(user.id);
    expect(rows.map((r) => [r.userId, r.firstLeaf, r.endLeaf, r.format, r.entries])).toEqual([
      [user.id, 0, 4096, 1, 4096],
      [user.id, 4096, 8192, 1, 4096],
      [user.id, 8192, 12288, 1, 4096],
    ]);
    for (const [i, want] of [first, second, empty].entries()) {
      const row = rows[i] as RecallSegmentRow;
      expect(Buffer.from(row.iv).equals(want.iv)).toBe(true);
      expect(Buffer.from(row.ciphertext).equals(want.ciphertext)).toBe(true);
      expect(row.sealedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(row.sealedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    }
    expect(await streamRecallSegments(t.db, (await makeUser(t.db)).id, () => {})).toBe(0);
  });

  it("rethrows what the callback threw once the stream is drained; the connection stays usable", async () => {
    const user = await makeUser(t.db);
    await sealRandom(user.id, 0, 4096, 2 * 1024 * 1024);
    await sealRandom(user.id, 4096, 8192, 2 * 1024 * 1024);
    let calls = 0;
    await expect(
      streamRecallSegments(t.db, user.id, () => {
        calls++;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(calls).toBe(1);
    // The pool has one connection: this answers only if the COPY was read to its end.
    expect((await read(user.id)).length).toBe(2);
  });

  it("refuses a user id that is not a UUID (it is written into the COPY statement)", async () => {
    await expect(streamRecallSegments(t.db, "x' or '1'='1", () => {})).rejects.toThrow(RangeError);
  });
});

describe("CopyBinaryReader", () => {
  const select = `select * from (values
      (1::int8, null::bytea, 'é'::text), (-2, '\\x00ff'::bytea, ''), (3, ''::bytea, null)) v`;

  it("reads a real stream the same whatever the chunk sizes", async () => {
    const bytes = await copyBytes(select);
    const whole = readInChunks(bytes, bytes.length);
    expect(whole).toEqual([
      ["0000000000000001", null, Buffer.from("é").toString("hex")],
      ["fffffffffffffffe", "00ff", ""],
      ["0000000000000003", "", null],
    ]);
    for (const size of [1, 2, 3, 5, 7, 19, 20, 64]) {
      expect(readInChunks(bytes, size), `chunks of ${size}`).toEqual(whole);
    }
  });

  it("refuses a wrong signature, bytes after the trailer and a stream cut short", async () => {
    const bytes = await copyBytes(select);
    const wrong = Buffer.from(bytes);
    wrong[0] = 0x51;
    expect(() => readInChunks(wrong, bytes.length)).toThrow(/signature/);
    expect(() => readInChunks(Buffer.concat([bytes, Buffer.from([0])]), bytes.length)).toThrow(
      /after the trailer/,
    );
    for (const cut of [5, 19, 30, bytes.length - 2, bytes.length - 1]) {
      expect(() => readInChunks(bytes.subarray(0, cut), 4), `cut at ${cut}`).toThrow(
        /before its trailer/,
      );
    }
  });
});

describe("sealRecallSegment", () => {
  it("keeps a range already sealed as far, and replaces a shorter (tail) segment at the same first leaf", async () => {
    const user = await makeUser(t.db);
    const tail = await sealRandom(user.id, 0, 10, 64);
    const same = { format: 1, entries: 5, iv: randomBytes(12), ciphertext: randomBytes(32) };
    for (const endLeaf of [5, 10]) {
      expect(await sealRecallSegment(t.db, user.id, { firstLeaf: 0, endLeaf }, () => same)).toBe(
        false,
      );
    }
    expect(await read(user.id)).toMatchObject([
      { firstLeaf: 0, endLeaf: 10, ciphertext: tail.ciphertext, iv: tail.iv },
    ]);
    const full = await sealRandom(user.id, 0, 16, 80);
    expect(await read(user.id)).toMatchObject([
      { firstLeaf: 0, endLeaf: 16, entries: 16, ciphertext: full.ciphertext, iv: full.iv },
    ]);
  });
});
