import { randomBytes, randomUUID } from "node:crypto";
import { DecryptionError, generateDataKey, wrapDataKey } from "@svc/envelope-crypto";
import { describe, expect, it } from "vitest";
import { DataKeys } from "../src/services/caller.js";

const masterKey = new Uint8Array(randomBytes(32));

function user(dataKey = generateDataKey()) {
  const userId = randomUUID();
  return { userId, dataKey, wrappedDataKey: wrapDataKey(masterKey, dataKey, userId) };
}

describe("DataKeys", () => {
  it("unwraps a user's data key once and answers later requests from memory", () => {
    const keys = new DataKeys(masterKey);
    const u = user();
    const first = keys.of(u);
    expect(Buffer.from(first).equals(Buffer.from(u.dataKey))).toBe(true);
    // The wrapped key of a later request is a fresh copy of the same bytes (as from the database).
    expect(keys.of({ userId: u.userId, wrappedDataKey: Uint8Array.from(u.wrappedDataKey) })).toBe(
      first,
    );
    expect(keys.size).toBe(1);
  });

  it("a different wrapped key for the user is unwrapped again (never answered from memory)", () => {
    const keys = new DataKeys(masterKey);
    const u = user();
    keys.of(u);
    const other = generateDataKey();
    const rewrapped = wrapDataKey(masterKey, other, u.userId);
    expect(Buffer.from(keys.of({ userId: u.userId, wrappedDataKey: rewrapped }))).toEqual(
      Buffer.from(other),
    );
    // A wrapped key of another user (or under another master key) does not open: nothing kept.
    const stranger = user();
    expect(() => keys.of({ userId: u.userId, wrappedDataKey: stranger.wrappedDataKey })).toThrow(
      DecryptionError,
    );
    expect(() => new DataKeys(new Uint8Array(randomBytes(32))).of(stranger)).toThrow(
      DecryptionError,
    );
    expect(Buffer.from(keys.of({ userId: u.userId, wrappedDataKey: rewrapped }))).toEqual(
      Buffer.from(other),
    );
  });

  it("keeps at most `max` users' keys, least recently used evicted", () => {
    const keys = new DataKeys(masterKey, 2);
    const [a, b, c] = [user(), user(), user()];
    const keyA = keys.of(a);
    keys.of(b);
    keys.of(c);
    expect(keys.size).toBe(2);
    const again = keys.of(a);
    expect(again).not.toBe(keyA);
    expect(Buffer.from(again)).toEqual(Buffer.from(a.dataKey));
    expect(() => new DataKeys(masterKey, 0)).toThrow(RangeError);
  });
});
