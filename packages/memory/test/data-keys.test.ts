import { randomBytes, randomUUID } from "node:crypto";
import {
  DecryptionError,
  generateDataKey,
  MasterKeyring,
  masterKeyId,
  wrapDataKey,
} from "@verifiable-memory/envelope-crypto";
import { describe, expect, it } from "vitest";
import { DataKeys } from "../src/caller.js";
import { wrapVersionOneDataKey } from "../src/testing/index.js";

const masterKey = new Uint8Array(randomBytes(32));
const keyring = new MasterKeyring(masterKey);

function user(dataKey = generateDataKey(), kek = masterKey) {
  const userId = randomUUID();
  return { userId, dataKey, wrappedDataKey: wrapDataKey(kek, dataKey, userId) };
}

describe("DataKeys", () => {
  it("unwraps a user's data key once and answers later requests from memory", () => {
    const keys = new DataKeys(keyring);
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
    const keys = new DataKeys(keyring);
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
    expect(() =>
      new DataKeys(new MasterKeyring(new Uint8Array(randomBytes(32)))).of(stranger),
    ).toThrow(DecryptionError);
    expect(Buffer.from(keys.of({ userId: u.userId, wrappedDataKey: rewrapped }))).toEqual(
      Buffer.from(other),
    );
  });

  it("picks the master key by the id the wrap names; a re-wrapped key gives the same data key", () => {
    const newKey = new Uint8Array(randomBytes(32));
    const keys = new DataKeys(new MasterKeyring(newKey, [masterKey]));
    const u = user();
    expect(Buffer.from(keys.of(u))).toEqual(Buffer.from(u.dataKey));
    const rotated = wrapDataKey(newKey, u.dataKey, u.userId);
    expect(Buffer.from(keys.of({ userId: u.userId, wrappedDataKey: rotated }))).toEqual(
      Buffer.from(u.dataKey),
    );
    const v1 = wrapVersionOneDataKey(masterKey, u.dataKey, u.userId);
    expect(Buffer.from(keys.of({ userId: u.userId, wrappedDataKey: v1 }))).toEqual(
      Buffer.from(u.dataKey),
    );
    // Once the old key is gone, a wrap still naming it fails with its id.
    const after = new DataKeys(new MasterKeyring(newKey));
    expect(() => after.of(u)).toThrow(masterKeyId(masterKey));
    expect(Buffer.from(after.of({ userId: u.userId, wrappedDataKey: rotated }))).toEqual(
      Buffer.from(u.dataKey),
    );
  });

  it("keeps at most `max` users' keys, least recently used evicted", () => {
    const keys = new DataKeys(keyring, 2);
    const [a, b, c] = [user(), user(), user()];
    const keyA = keys.of(a);
    keys.of(b);
    keys.of(c);
    expect(keys.size).toBe(2);
    const again = keys.of(a);
    expect(again).not.toBe(keyA);
    expect(Buffer.from(again)).toEqual(Buffer.from(a.dataKey));
    expect(() => new DataKeys(keyring, 0)).toThrow(RangeError);
  });
});
