import { createDatabase } from "@verifiable-memory/db-schema";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { describe, expect, it } from "vitest";
import { databaseReadiness } from "../src/index.js";

describe("databaseReadiness", () => {
  it("is ready on a migrated database", async () => {
    const database = await createTestDatabase();
    try {
      expect(await databaseReadiness(database.db)).toEqual({ ready: true });
    } finally {
      await database.close();
    }
  });

  it("throws when the database does not answer", async () => {
    const dead = createDatabase({ url: "postgres://postgres@127.0.0.1:1/none", max: 1 });
    try {
      await expect(databaseReadiness(dead.db)).rejects.toThrow();
    } finally {
      await dead.close();
    }
  });
});
