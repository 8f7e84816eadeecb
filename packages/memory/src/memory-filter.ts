/**
 * Recall and list filters over a memory's clear fields (docs/protocol.md §4.5 "Recall"): metadata
 * conditions (a scalar or array/object for deep equality, or an operator object with `$in`,
 * `$gte`, `$lte`, `$contains`), the namespace (exact, prefix, and the credential's confinement),
 * the creation time range and whether superseded versions count. Pure: the same predicate runs
 * over the recall cache and in tests' reference filters.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { isOperatorObject, orderedValueOf } from "@verifiable-memory/memory-schemas";

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

/** The clear fields of a set of memories, column-wise (position i of each is one memory). */
export interface FilterColumns {
  /** Each memory's metadata (read only when the filter has metadata conditions). */
  readonly metadata: readonly Readonly<Record<string, unknown>>[];
  /** Each memory's namespace, as an index into `namespaceNames`. */
  readonly namespaceCodes: ArrayLike<number>;
  /** The namespaces by code (null: none). */
  readonly namespaceNames: readonly (string | null)[];
  /** Each memory's creation time, epoch milliseconds. */
  readonly createdMs: ArrayLike<number>;
  /** 1 where the memory is superseded, 0 while current. */
  readonly superseded: ArrayLike<number>;
  /** How many entries of `superseded` are set (0: the check is skipped). */
  readonly supersededCount: number;
}

/** A compiled filter: a memory's position in its columns in, whether it passes out. */
export type MemoryPredicate = (position: number) => boolean;

/** One metadata condition, over the whole metadata object. */
type Condition = (metadata: Readonly<Record<string, unknown>>) => boolean;

/**
 * The condition "`metadata[key]` satisfies `value`". Equality with a scalar needs no presence
 * check: a missing key reads undefined (or an inherited function), never equal to a JSON scalar.
 */
function conditionOf(key: string, value: unknown): Condition {
  if (!isOperatorObject(value)) {
    if (value === 0) {
      // Only here do === and deep equality differ (-0).
      return (metadata) => Object.is(metadata[key], value);
    }
    if (value === null || typeof value !== "object") {
      return (metadata) => metadata[key] === value;
    }
    return (metadata) => Object.hasOwn(metadata, key) && isDeepStrictEqual(metadata[key], value);
  }
  const parts = Object.entries(value).map(([op, operand]): ((actual: unknown) => boolean) => {
    switch (op) {
      case "$in": {
        const options = operand as unknown[];
        return (actual) => options.some((option) => isDeepStrictEqual(actual, option));
      }
      case "$gte":
      case "$lte": {
        const bound = orderedValueOf(operand) as { kind: "number" | "time"; at: number };
        const holds = op === "$gte" ? (x: number) => x >= bound.at : (x: number) => x <= bound.at;
        return (actual) => {
          const ordered = orderedValueOf(actual);
          return ordered !== null && ordered.kind === bound.kind && holds(ordered.at);
        };
      }
      case "$contains":
        return (actual) => Array.isArray(actual) && actual.some((item) => item === operand);
      default:
        throw new RangeError(`unknown metadata operator ${op}`);
    }
  });
  return (metadata) => {
    if (!Object.hasOwn(metadata, key)) {
      return false;
    }
    const actual = metadata[key];
    for (let i = 0; i < parts.length; i++) {
      if (!(parts[i] as (actual: unknown) => boolean)(actual)) {
        return false;
      }
    }
    return true;
  };
}

/**
 * Compiles `filter` into a predicate over the memories of `columns`: only the columns and
 * conditions the filter uses are read.
 * @throws RangeError on an unknown operator (validate with {@link metadataFilterProblem} first).
 */
export function compileFilter(filter: MemoryFilter, columns: FilterColumns): MemoryPredicate {
  const { metadata, namespaceCodes, namespaceNames, createdMs, superseded } = columns;
  const tests: MemoryPredicate[] = [];
  if (!(filter.includeSuperseded ?? false) && columns.supersededCount > 0) {
    tests.push((position) => superseded[position] === 0);
  }
  const exact = filter.namespace;
  if (exact !== undefined) {
    const code = namespaceNames.indexOf(exact);
    tests.push(code < 0 ? () => false : (position) => namespaceCodes[position] === code);
  }
  for (const prefix of [filter.namespacePrefix, filter.confinedTo ?? undefined]) {
    if (prefix !== undefined) {
      // Which codes name a namespace under the prefix, decided once per namespace.
      const under = Uint8Array.from(namespaceNames, (name) => (name?.startsWith(prefix) ? 1 : 0));
      tests.push((position) => under[namespaceCodes[position] as number] === 1);
    }
  }
  if (filter.createdAfter !== undefined || filter.createdBefore !== undefined) {
    const after = filter.createdAfter?.getTime() ?? Number.NEGATIVE_INFINITY;
    const before = filter.createdBefore?.getTime() ?? Number.POSITIVE_INFINITY;
    tests.push((position) => {
      const at = createdMs[position] as number;
      return at > after && at < before;
    });
  }
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    if (value !== 0 && (value === null || (typeof value !== "object" && value !== undefined))) {
      // The common case, equality with a scalar, in one step (see conditionOf).
      tests.push((position) => (metadata[position] as Record<string, unknown>)[key] === value);
      continue;
    }
    const condition = conditionOf(key, value);
    tests.push((position) => condition(metadata[position] as Readonly<Record<string, unknown>>));
  }
  if (tests.length === 0) {
    return () => true;
  }
  if (tests.length === 1) {
    return tests[0] as MemoryPredicate;
  }
  if (tests.length === 2) {
    const [first, second] = tests as [MemoryPredicate, MemoryPredicate];
    return (position) => first(position) && second(position);
  }
  return (position) => {
    for (let i = 0; i < tests.length; i++) {
      if (!(tests[i] as MemoryPredicate)(position)) {
        return false;
      }
    }
    return true;
  };
}

/** A clear field an equality index can cover: a top-level metadata key, or the namespace. */
export type IndexedField =
  | { readonly kind: "metadata"; readonly key: string }
  | { readonly kind: "namespace" };

/** A condition of a filter that holds only where `field` is (`===`) the scalar `value`. */
export interface EqualityCondition {
  readonly field: IndexedField;
  readonly value: string | number | boolean | null;
}

/**
 * The conditions of `filter` an equality index can answer: the exact namespace, and each metadata
 * condition that is a scalar compared with `===` by {@link compileFilter} (a string, a boolean,
 * null, or a number other than 0 and -0, which deep equality tells apart). Every memory passing
 * `filter` has each of these fields equal to its value, so the positions an index lists for any
 * one of them hold every match (the filter still decides).
 * @returns the conditions in the filter's order; empty when none qualifies.
 */
export function equalityConditions(filter: MemoryFilter): EqualityCondition[] {
  const conditions: EqualityCondition[] = [];
  if (filter.namespace !== undefined) {
    conditions.push({ field: { kind: "namespace" }, value: filter.namespace });
  }
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    if (
      value === null ||
      typeof value === "string" ||
      typeof value === "boolean" ||
      (typeof value === "number" && value !== 0)
    ) {
      conditions.push({ field: { kind: "metadata", key }, value });
    }
  }
  return conditions;
}

/** True when `namespace` lies under the confinement `prefix` (null: no confinement). */
export function withinConfinement(namespace: string | null, prefix: string | null): boolean {
  return prefix === null || namespace?.startsWith(prefix) === true;
}
