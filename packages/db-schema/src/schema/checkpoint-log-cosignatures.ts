/**
 * Witness cosignatures of the checkpoint log's heads (docs/protocol.md §13.6 "Witnesses"): one row
 * per (head size, witness verifier key), holding the witness's signature line as it answered it.
 * @module
 */
import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./_columns.js";
import { checkpointLogHeads } from "./checkpoint-log.js";

/** A cosignature line of the head at `treeSize` by the witness whose verifier key is `witness`. */
export const checkpointLogCosignatures = pgTable(
  "checkpoint_log_cosignatures",
  {
    treeSize: bigint({ mode: "number" })
      .notNull()
      .references(() => checkpointLogHeads.treeSize),
    /** The witness's verifier key (`<name>+<hex id>+<base64(0x04 ‖ key)>`). */
    witness: text().notNull(),
    /** The signature line `— <name> <base64(id ‖ time ‖ signature)>\n`. */
    line: text().notNull(),
    /** The cosignature's own timestamp. */
    cosignedAt: timestampMs().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.treeSize, t.witness] }),
    index("checkpoint_log_cosignatures_witness_size_idx").on(t.witness, t.treeSize),
  ],
);

/** A row of `checkpoint_log_cosignatures`. */
export type CheckpointLogCosignatureRow = typeof checkpointLogCosignatures.$inferSelect;
