/**
 * Recall and list filters over a memory's clear fields (docs/protocol.md §4 "Recall"): metadata
 * conditions (a scalar or array/object for deep equality, or an operator object with `$in`,
 * `$gte`, `$lte`, `$contains`), the namespace (exact, prefix, and the credential's confinement),
 * the creation time range and whether superseded versions count. Pure: the same predicate runs
 * over the recall cache and in tests' reference filters.
 * @module
 */
import { isDeepStrictEqual } from "node:util";

/** The operators of a metadata condition (docs/protocol.md §4). */
export const METADATA_OPERATORS = ["$in", "$gte", "$lte", "$contains"] as const;
/** One metadata operator. */
export type MetadataOperator = (typeof METADATA_OPERATORS)[number];

/** What a memory must satisfy, all conditions together. */
export interface MemoryFilter {
  /** Top-level metadata key → scalar/array/object (deep equality) or operator object. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Exactly this namespace. */
  readonly namespace?: string | undefined;
  /** A namespace starting with this. */
  readonly namespacePrefix?: string | undefined;
  /** The credential's confinement: a namespace starting with this (null: none). */
  readonly confinedTo?: string | null | undefined;
  /** Created strictly after this time. */
  readonly createdAfter?: Date | undefined;
  /** Created strictly before this time. */
  readonly createdBefore?: Date | undefined;
  /** Also superseded versions; default false (current versions only). */
  readonly includeSuperseded?: boolean | undefined;
}

/** The fields of a memory a filter looks at. */
export interface FilterableMemory {
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly namespace: string | null;
  readonly createdAtMs: number;
  readonly superseded: boolean;
}

type Condition = (value: unknown, present: boolean) => boolean;

/** True when `value` is an operator object: a plain object with at least one key starting with `$`. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).some((key) => key.startsWith("$"))
  );
}

/**
 * The first reason `filter` (a metadata filter as the client sent it) is not acceptable, or
 * null: an operator object (a plain object with a key starting with `$`) must use only known operators, `$in` takes an array, `$gte`/`$lte` a
 * finite number or an ISO 8601 time, `$contains` a scalar.
 */
export function metadataFilterProblem(filter: Readonly<Record<string, unknown>>): {
  key: string;
  message: string;
} | null {
  for (const [key, value] of Object.entries(filter)) {
    if (!isOperatorObject(value)) {
      continue;
    }
    for (const [op, operand] of Object.entries(value)) {
      if (!(METADATA_OPERATORS as readonly string[]).includes(op)) {
        return {
          key,
          message: `unknown operator ${op} (known: ${METADATA_OPERATORS.join(", ")}); an operator object holds operators only`,
        };
      }
      if (op === "$in" && !Array.isArray(operand)) {
        return { key, message: "$in takes an array" };
      }
      if ((op === "$gte" || op === "$lte") && orderedOf(operand) === null) {
        return { key, message: `${op} takes a finite number or an ISO 8601 time` };
      }
      if (op === "$contains" && operand !== null && typeof operand === "object") {
        return { key, message: "$contains takes a scalar (string, number, boolean or null)" };
      }
    }
  }
  return null;
}

/** A comparable form of a `$gte`/`$lte` operand: a number, or an ISO 8601 time in ms. */
function orderedOf(value: unknown): { kind: "number" | "time"; at: number } | null {
  if (typeof value === "number" && Number.isFinite(value)) {
    return { kind: "number", at: value };
  }
  if (typeof value === "string" && ISO_TIME.test(value)) {
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : { kind: "time", at };
  }
  return null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function conditionOf(value: unknown): Condition {
  if (!isOperatorObject(value)) {
    return (actual, present) => present && isDeepStrictEqual(actual, value);
  }
  const parts: Condition[] = Object.entries(value).map(([op, operand]) => {
    switch (op) {
      case "$in": {
        const options = operand as unknown[];
        return (actual, present) =>
          present && options.some((option) => isDeepStrictEqual(actual, option));
      }
      case "$gte":
      case "$lte": {
        const bound = orderedOf(operand) as { kind: "number" | "time"; at: number };
        const holds = op === "$gte" ? (x: number) => x >= bound.at : (x: number) => x <= bound.at;
        return (actual, present) => {
          if (!present) {
            return false;
          }
          const ordered = orderedOf(actual);
          return ordered !== null && ordered.kind === bound.kind && holds(ordered.at);
        };
      }
      case "$contains":
        return (actual, present) =>
          present && Array.isArray(actual) && actual.some((item) => item === operand);
      default:
        throw new RangeError(`unknown metadata operator ${op}`);
    }
  });
  return (actual, present) => parts.every((part) => part(actual, present));
}

/**
 * Compiles `filter` into a predicate over a memory's clear fields.
 * @throws RangeError on an unknown operator (validate with {@link metadataFilterProblem} first).
 */
export function compileFilter(filter: MemoryFilter): (memory: FilterableMemory) => boolean {
  const conditions = Object.entries(filter.metadata ?? {}).map(
    ([key, value]) => [key, conditionOf(value)] as const,
  );
  const prefixes = [filter.namespacePrefix, filter.confinedTo ?? undefined].filter(
    (p): p is string => p !== undefined,
  );
  const after = filter.createdAfter?.getTime();
  const before = filter.createdBefore?.getTime();
  const includeSuperseded = filter.includeSuperseded ?? false;
  return (memory) => {
    if (memory.superseded && !includeSuperseded) {
      return false;
    }
    if (filter.namespace !== undefined && memory.namespace !== filter.namespace) {
      return false;
    }
    for (const prefix of prefixes) {
      if (memory.namespace === null || !memory.namespace.startsWith(prefix)) {
        return false;
      }
    }
    if (after !== undefined && !(memory.createdAtMs > after)) {
      return false;
    }
    if (before !== undefined && !(memory.createdAtMs < before)) {
      return false;
    }
    for (const [key, condition] of conditions) {
      const present = Object.hasOwn(memory.metadata, key);
      if (!condition(present ? memory.metadata[key] : undefined, present)) {
        return false;
      }
    }
    return true;
  };
}

/** True when `namespace` lies under the confinement `prefix` (null: no confinement). */
export function withinConfinement(namespace: string | null, prefix: string | null): boolean {
  return prefix === null || namespace?.startsWith(prefix) === true;
}
