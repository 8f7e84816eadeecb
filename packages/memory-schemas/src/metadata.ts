/**
 * Memory metadata and metadata filters as the APIs and the MCP tools accept them
 * (docs/protocol.md §1 limits, §4.5 "Recall"): the limits, the checks, and their zod schemas.
 * @module
 */
import { z } from "@hono/zod-openapi";
import canonicalizeModule from "canonicalize";

// canonicalize is CommonJS with an ES default export in its typings (see @verifiable-memory/verifier leaf.ts).
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** Most UTF-8 bytes of a memory's content (docs/protocol.md §1). */
export const MAX_CONTENT_BYTES = 32_768;
/** Most bytes of a memory's metadata once canonicalised (RFC 8785; docs/protocol.md §1). */
export const MAX_METADATA_BYTES = 4096;
/** Metadata keys: 1 to 64 characters (docs/protocol.md §1), at every depth. */
export const MAX_METADATA_KEY_CHARS = 64;
/** Most memories of one `POST /memories/batch` (docs/protocol.md §4). */
export const MAX_BATCH_ITEMS = 256;
/** The body limit of `POST /memories/batch`, 1 MiB (the other routes keep 256 KiB). */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` is well-formed Unicode (no lone surrogate). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * `__proto__` is refused as a metadata key at any depth: JavaScript object assignment treats it
 * as the prototype, so a parser on either side could drop it and commit a leaf that differs from
 * the request.
 */
const PROTO_KEY = "__proto__";
const PROTO_KEY_MESSAGE = 'metadata keys must not be "__proto__"';

/**
 * The first reason `value` is not acceptable memory metadata, or null: a JSON object whose keys
 * (at every depth) have 1–64 characters, whose strings are well-formed and free of U+0000, whose
 * numbers are finite, and whose RFC 8785 form is at most 4 096 UTF-8 bytes.
 */
export function metadataProblem(value: Record<string, unknown>): string | null {
  const problem = jsonProblem(value, 0);
  if (problem) {
    return problem;
  }
  const canonical = canonicalize(value);
  if (canonical === undefined || Buffer.byteLength(canonical, "utf8") > MAX_METADATA_BYTES) {
    return `metadata must be at most ${MAX_METADATA_BYTES} bytes once canonicalised (RFC 8785)`;
  }
  return null;
}

function jsonProblem(value: unknown, depth: number): string | null {
  if (depth > 32) {
    return "metadata is nested too deeply";
  }
  if (typeof value === "string") {
    if (!isWellFormedText(value)) {
      return "metadata strings must be well-formed Unicode";
    }
    return value.includes("\u0000") ? "metadata strings must not contain U+0000" : null;
  }
  if (typeof value === "number") {
    return Number.isFinite(value) ? null : "metadata numbers must be finite";
  }
  if (value === null || typeof value === "boolean") {
    return null;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  if (typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.length < 1 || key.length > MAX_METADATA_KEY_CHARS) {
        return `metadata keys must have 1 to ${MAX_METADATA_KEY_CHARS} characters`;
      }
      if (!isWellFormedText(key) || key.includes("\u0000")) {
        return "metadata keys must be well-formed Unicode without U+0000";
      }
      if (key === PROTO_KEY) {
        return PROTO_KEY_MESSAGE;
      }
      const problem = jsonProblem(item, depth + 1);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  return "metadata must hold JSON values only";
}

/** A metadata object (docs/protocol.md §1, §4). */
export const MetadataSchema = z
  .preprocess(
    (value, ctx) => {
      // zod's record skips an own "__proto__" key: refuse it before it can be dropped.
      if (value !== null && typeof value === "object" && Object.hasOwn(value, PROTO_KEY)) {
        ctx.addIssue({ code: "custom", path: [PROTO_KEY], message: PROTO_KEY_MESSAGE });
      }
      return value;
    },
    z.record(z.string(), z.unknown()),
  )
  .superRefine((value, ctx) => {
    const problem = metadataProblem(value);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
    }
  })
  .openapi("Metadata", {
    description: "A JSON object, at most 4 096 bytes as RFC 8785 canonical JSON; keys 1–64 chars",
    example: { source: "notes.md", section: "intro" },
  });

/** The operators of a metadata condition (docs/protocol.md §4). */
export const METADATA_OPERATORS = ["$in", "$gte", "$lte", "$contains"] as const;
/** One metadata operator. */
export type MetadataOperator = (typeof METADATA_OPERATORS)[number];

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
      if ((op === "$gte" || op === "$lte") && orderedValueOf(operand) === null) {
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
export function orderedValueOf(value: unknown): { kind: "number" | "time"; at: number } | null {
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

/**
 * A metadata filter of recall (docs/protocol.md §4.5 "Recall"): per top-level key, a value matched
 * by deep equality, or an operator object (`$in`, `$gte`, `$lte`, `$contains`, all of those given
 * must hold). An unknown operator or a wrong operand is refused, naming the key, rather than
 * matching nothing in silence.
 */
export const MetadataFilterSchema = MetadataSchema.superRefine((value, ctx) => {
  const problem = metadataFilterProblem(value);
  if (problem) {
    ctx.addIssue({ code: "custom", path: [problem.key], message: problem.message });
  }
}).openapi("MetadataFilter", {
  description:
    'key → value (deep equality) or operators: { "$in": [..] }, { "$gte": n | ISO time }, { "$lte": n | ISO time }, { "$contains": scalar } (arrays)',
  example: { topic: "billing", importance: { $gte: 3 }, tags: { $contains: "urgent" } },
});
