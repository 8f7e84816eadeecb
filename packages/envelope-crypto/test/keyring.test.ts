/**
 * MasterKeyring: the current master key wraps, every configured key unwraps the data keys that
 * name its id, version-1 wraps (no id) open under whichever configured key wrapped them, and a
 * wrap naming an id that is not configured fails with that id.
 */
import { describe, expect, it } from "vitest";
import {
  generateDataKey,
  MasterKeyring,
  masterKeyId,
  wrapDataKey,
  wrappedKeyId,
} from "../src/index.js";
import { catchDecryptionError, wrapVersionOne } from "./_helpers.js";

const oldKey = generateDataKey();
const newKey = generateDataKey();
const strangerKey = generateDataKey();

describe("MasterKeyring", () => {
  it("lists the key ids, the current one first, each key once", () => {
    const keys = new MasterKeyring(newKey, [oldKey, newKey, oldKey]);
    expect(keys.current).toEqual({ id: masterKeyId(newKey), key: newKey });
    expect(keys.ids).toEqual([masterKeyId(newKey), masterKeyId(oldKey)]);
    expect(keys.has(masterKeyId(oldKey))).toBe(true);
    expect(keys.has(masterKeyId(strangerKey))).toBe(false);
    expect(new MasterKeyring(newKey).ids).toEqual([masterKeyId(newKey)]);
  });

  it("wraps under the current key and unwraps with the key each wrap names", () => {
    const keys = new MasterKeyring(newKey, [oldKey]);
    const dek = generateDataKey();
    const fresh = keys.wrap(dek, "user-a");
    expect(wrappedKeyId(fresh)).toBe(masterKeyId(newKey));
    expect(keys.unwrap(fresh, "user-a")).toEqual(dek);
    const old = wrapDataKey(oldKey, dek, "user-a");
    expect(keys.unwrap(old, "user-a")).toEqual(dek);
  });

  it("fails with unknown_master_key naming the id when the wrap's key is not configured", () => {
    const keys = new MasterKeyring(newKey, [oldKey]);
    const error = catchDecryptionError(() =>
      keys.unwrap(wrapDataKey(strangerKey, generateDataKey(), "user-a"), "user-a"),
    );
    expect(error.code).toBe("unknown_master_key");
    expect(error.message).toContain(masterKeyId(strangerKey));
  });

  it("opens a version-1 wrap under whichever configured key wrapped it", () => {
    const dek = generateDataKey();
    const v1 = wrapVersionOne(oldKey, dek, "user-a");
    expect(new MasterKeyring(newKey, [oldKey]).unwrap(v1, "user-a")).toEqual(dek);
    expect(new MasterKeyring(oldKey).unwrap(v1, "user-a")).toEqual(dek);
    const none = new MasterKeyring(newKey, [strangerKey]);
    expect(catchDecryptionError(() => none.unwrap(v1, "user-a")).code).toBe(
      "authentication_failed",
    );
    expect(catchDecryptionError(() => none.unwrap(new Uint8Array(0), "user-a")).code).toBe(
      "malformed",
    );
  });

  it("throws TypeError naming the key on misuse", () => {
    expect(() => new MasterKeyring(new Uint8Array(31))).toThrow(/current/);
    expect(() => new MasterKeyring(newKey, [oldKey, new Uint8Array(33)])).toThrow(/previous\[1\]/);
    expect(() => masterKeyId(new Uint8Array(16))).toThrow(/masterKey/);
  });
});
