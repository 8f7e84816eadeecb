/**
 * Typed errors of the memory domain (they know nothing of HTTP; each app maps `code` to its
 * status in one place).
 * @module
 */

/** The closed set of domain failure codes. */
export type MemoryErrorCode = "not_found" | "invalid_request" | "conflict" | "forbidden";

/** Base class of the memory domain's refusals. */
export class MemoryDomainError extends Error {
  readonly code: MemoryErrorCode;
  /** Structured details for the client (e.g. failing fields), or undefined. */
  readonly details: unknown;

  constructor(code: MemoryErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "MemoryDomainError";
    this.code = code;
    this.details = details;
  }
}

/** The memory is unknown, deleted, or another user's (those are indistinguishable, docs/protocol.md §3). */
export class MemoryNotFoundError extends MemoryDomainError {
  constructor() {
    super("not_found", "no such memory");
    this.name = "MemoryNotFoundError";
  }
}

/** A consistency-proof range outside `1 ≤ from ≤ to ≤ treeSize` (RFC 9162 §2.1.4). */
export class InvalidRangeError extends MemoryDomainError {
  readonly from: number;
  readonly to: number;
  readonly treeSize: number;

  constructor(from: number, to: number, treeSize: number) {
    super("invalid_request", `need 1 <= from <= to <= treeSize (${treeSize})`, [
      { path: ["from"], message: `from=${from}, to=${to}, treeSize=${treeSize}` },
    ]);
    this.name = "InvalidRangeError";
    this.from = from;
    this.to = to;
    this.treeSize = treeSize;
  }
}

/**
 * `PUT /memories/:id` on a deleted or already superseded memory (docs/protocol.md §4.7 "Updates
 * and history").
 */
export class MemoryConflictError extends MemoryDomainError {
  constructor(reason: "deleted" | "superseded") {
    super(
      "conflict",
      reason === "deleted"
        ? "this memory was deleted; it cannot be updated"
        : "this memory was already superseded; update its current version",
      { reason },
    );
    this.name = "MemoryConflictError";
  }
}

/**
 * A write into a namespace outside the API key's confinement (docs/protocol.md §3.5 "Scopes, expiry
 * and confinement").
 */
export class NamespaceForbiddenError extends MemoryDomainError {
  /** @param path the request field that named the namespace, e.g. `["items", 3, "namespace"]`. */
  constructor(namespace: string | null, confinedTo: string, path: (string | number)[]) {
    super("forbidden", `this API key is confined to namespaces starting with "${confinedTo}"`, [
      { path, message: `${JSON.stringify(namespace)} is outside the key's namespace` },
    ]);
    this.name = "NamespaceForbiddenError";
  }
}
