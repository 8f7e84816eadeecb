/**
 * Read-only overviews of a wallet's memories for dashboards (the web console): its anchored
 * checkpoints over time (`GET /log/checkpoints`, docs/protocol.md §6.4) and its namespaces with
 * their counts (`GET /namespaces`, docs/protocol.md §4.6). Every read is scoped by the caller's
 * userId in the query; namespaces also by the caller's confinement.
 * @module
 */
import type { Database, NamespaceCount, Page } from "@verifiable-memory/db-schema";
import { listAnchoredCheckpoints, listNamespaces } from "@verifiable-memory/db-schema";
import { toHex } from "@verifiable-memory/merkle-log";
import type { Caller, Owner } from "./caller.js";

/** One anchored checkpoint as the API shows it. */
export interface CheckpointView {
  /** Tree size committed. */
  readonly treeSize: number;
  /** Root at that size, lowercase hex. */
  readonly rootHash: string;
  /** The commitment account's nonce after this commit. */
  readonly nonce: number;
  /** The confirmed transaction's signature, base58. */
  readonly signature: string;
  /** The slot the transaction landed in; null when the anchor service did not record it. */
  readonly slot: number | null;
  /** When the anchor service saw it confirmed, ISO 8601. */
  readonly anchoredAt: string;
}

/** One namespace as the API shows it. */
export interface NamespaceView {
  /** The namespace; null for memories written without one. */
  readonly namespace: string | null;
  /** Live, current memories in it. */
  readonly count: number;
  /** Creation time of the newest of them, ISO 8601. */
  readonly lastWrittenAt: string;
}

/** Page options of the overview lists. */
export interface OverviewPageInput {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** The overview reads (see the module documentation). */
export class LogOverviewService {
  constructor(private readonly db: Database) {}

  /**
   * The owner's anchored checkpoints, largest tree size first (docs/protocol.md §6.4). The log is
   * the wallet's whole tree, so a confined key sees every checkpoint, as `GET /log` (§3.5).
   * @throws InvalidCursorError (from db-schema) on a cursor of another list.
   */
  async checkpoints(owner: Owner, input: OverviewPageInput): Promise<Page<CheckpointView>> {
    const page = await listAnchoredCheckpoints(this.db, owner.userId, input);
    return {
      items: page.items.map((c) => ({
        treeSize: c.treeSize,
        rootHash: toHex(c.root),
        nonce: c.nonce,
        signature: c.signature,
        slot: c.slot,
        anchoredAt: c.anchoredAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * The caller's namespaces with counts of live, current memories, sorted by name (null first),
   * within the caller's confinement (the null namespace is outside every confinement;
   * docs/protocol.md §3.5) and under `prefix` when given.
   * @throws InvalidCursorError (from db-schema) on a cursor of another list.
   */
  async namespaces(
    caller: Caller,
    input: OverviewPageInput & { readonly prefix?: string | undefined },
  ): Promise<Page<NamespaceView>> {
    const page = await listNamespaces(this.db, caller.userId, {
      ...input,
      confinedTo: caller.namespace,
    });
    return {
      items: page.items.map((n: NamespaceCount) => ({
        namespace: n.namespace,
        count: n.count,
        lastWrittenAt: n.lastWrittenAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }
}
