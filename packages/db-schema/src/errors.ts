/**
 * Typed domain errors of the data layer and the observable tree-save conflict counter
 * (docs/protocol.md §7.7 "Leader election and the anchor service's surface").
 * @module
 */
/** Base class of this package's domain errors; `code` is stable snake_case. */
export class DatabaseDomainError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A tree save lost an optimistic-concurrency race: the `trees` row no longer had the version the
 * writer read. The transaction is rolled back; appendMemories retries it.
 */
export class TreeSaveConflictError extends DatabaseDomainError {
  readonly userId: string;
  readonly expectedVersion: number;
  constructor(userId: string, expectedVersion: number) {
    super(
      "tree_save_conflict",
      `tree of user ${userId} changed concurrently (expected version ${expectedVersion})`,
    );
    this.userId = userId;
    this.expectedVersion = expectedVersion;
  }
}

/**
 * A user's persisted tree state is inconsistent (frontier not matching the size, leaf indices not
 * contiguous). Repair with rebuildTree; if the leaves themselves are not contiguous the log is
 * damaged and needs an operator.
 */
export class TreeCorruptError extends DatabaseDomainError {
  readonly userId: string;
  readonly reason: string;
  constructor(userId: string, reason: string) {
    super("tree_corrupt", `tree of user ${userId} is corrupt: ${reason}`);
    this.userId = userId;
    this.reason = reason;
  }
}

/** A pagination cursor that this package did not issue (or issued for another list). */
export class InvalidCursorError extends DatabaseDomainError {
  constructor() {
    super("invalid_cursor", "the cursor is not valid for this list");
  }
}

/** A monotonically increasing counter, read by a metrics endpoint. */
export class Counter {
  readonly name: string;
  readonly help: string;
  #value = 0;
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }
  /** The current count. */
  get value(): number {
    return this.#value;
  }
  /** Adds one. */
  inc(): void {
    this.#value += 1;
  }
}

/**
 * Tree saves rejected by the optimistic-concurrency check in this process (each rejection is
 * retried by appendMemories). Must stay zero with one writer per user; the anchor service exports
 * it as a metric.
 */
export const treeSaveConflicts = new Counter(
  "tree_save_conflicts_total",
  "Tree saves rejected because the tree row changed since it was read",
);
