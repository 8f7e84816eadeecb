/**
 * parseMasterKey: MASTER_ENCRYPTION_KEY as 32 bytes of hex, base64 or base64url
 * (docs/protocol.md §10); everything else is a TypeError with the fixed message.
 */
import { describe, expect, it } from "vitest";
import { parseMasterKey } from "../src/index.js";

const key = Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => 255 - 7 * i));
const MESSAGE = "MASTER_ENCRYPTION_KEY must be 32 bytes, base64 or hex";

describe("parseMasterKey", () => {
  it.each([
    ["lowercase hex", key.toString("hex")],
    ["uppercase hex", key.toString("hex").toUpperCase()],
    ["base64 (padded)", key.toString("base64")],
    ["base64 (unpadded)", key.toString("base64").replace(/=+$/, "")],
    ["base64url (unpadded)", key.toString("base64url")],
    ["base64url (padded)", `${key.toString("base64url")}=`],
    ["with a trailing newline", `${key.toString("base64")}\n`],
  ])("accepts %s", (_name, text) => {
    const parsed = parseMasterKey(text);
    expect(parsed).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(parsed)).toEqual(key);
  });

  it("checks that the fixture uses both base64 alphabets' special characters", () => {
    expect(key.toString("base64")).toMatch(/[+/]/);
    expect(key.toString("base64url")).toMatch(/[-_]/);
  });

  const base64 = key.toString("base64");
  const nonCanonical = `${base64.slice(0, 42)}${String.fromCharCode(base64.charCodeAt(42) + 1)}=`;

  it.each([
    ["31 bytes hex", Buffer.alloc(31, 1).toString("hex")],
    ["33 bytes hex", Buffer.alloc(33, 1).toString("hex")],
    ["31 bytes base64", Buffer.alloc(31, 1).toString("base64")],
    ["33 bytes base64", Buffer.alloc(33, 1).toString("base64")],
    ["31 bytes base64url", Buffer.alloc(31, 1).toString("base64url")],
    ["33 bytes base64url", Buffer.alloc(33, 1).toString("base64url")],
    ["hex with a non-hex character", `${key.toString("hex").slice(0, 63)}g`],
    ["mixed base64 alphabets", "+_v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s="],
    ["base64 with non-zero unused bits", nonCanonical],
    ["double padding", `${base64}=`],
    ["inner whitespace", `${base64.slice(0, 20)} ${base64.slice(20)}`],
    ["garbage", "not a key at all"],
    ["empty", ""],
  ])("rejects %s", (_name, text) => {
    expect(() => parseMasterKey(text)).toThrow(new TypeError(MESSAGE));
  });

  it("the non-canonical fixture is one Buffer itself would accept", () => {
    expect(Buffer.from(nonCanonical, "base64")).toEqual(key);
  });
});
