/**
 * Request and response schemas of the memory routes (CONTRACT §1 limits, §4, §5, §11). The zod
 * schemas that validate requests are the ones published at `/openapi.json`.
 * @module
 */
import { z } from "@hono/zod-openapi";
import canonicalizeModule from "canonicalize";

// canonicalize is CommonJS with an ES default export in its typings (see @svc/verifier leaf.ts).
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** Most UTF-8 bytes of a memory's content (CONTRACT §1). */
export const MAX_CONTENT_BYTES = 32_768;
/** Most bytes of a memory's metadata once canonicalised (RFC 8785; CONTRACT §1). */
export const MAX_METADATA_BYTES = 4096;
/** Metadata keys: 1 to 64 characters (CONTRACT §1), at every depth. */
export const MAX_METADATA_KEY_CHARS = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` is well-formed Unicode (no lone surrogate). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

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
      const problem = jsonProblem(item, depth + 1);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  return "metadata must hold JSON values only";
}

/** A metadata object (CONTRACT §1, §4). */
export const MetadataSchema = z
  .record(z.string(), z.unknown())
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

/** Memory content: 1 to 32 768 UTF-8 bytes of well-formed Unicode. */
export const ContentSchema = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    if (!isWellFormedText(value)) {
      ctx.addIssue({ code: "custom", message: "content must be well-formed Unicode" });
    } else if (Buffer.byteLength(value, "utf8") > MAX_CONTENT_BYTES) {
      ctx.addIssue({
        code: "custom",
        message: `content must be at most ${MAX_CONTENT_BYTES} UTF-8 bytes`,
      });
    }
  });

/** `POST /memories` body. */
export const CreateMemoryBodySchema = z.object({
  content: ContentSchema,
  metadata: MetadataSchema.optional(),
});

/** `POST /memories/search` body. */
export const SearchBodySchema = z.object({
  query: ContentSchema,
  limit: z.number().int().min(1).max(200).default(20),
  caseSensitive: z.boolean().default(false),
  metadata: MetadataSchema.optional(),
});

/** A memory (CONTRACT §4). */
export const MemorySchema = z
  .object({
    id: z.string(),
    leafIndex: z.number().int(),
    leafHash: z.string().openapi({ description: "lowercase hex SHA-256(0x00 ‖ leafData)" }),
    content: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    anchored: z.boolean(),
  })
  .openapi("Memory");

/** `POST /memories` answer. */
export const CreatedMemorySchema = MemorySchema.omit({ content: true }).openapi("CreatedMemory");

/** The leaf data object (CONTRACT §4 "Leaf encoding"). */
export const LeafDataSchema = z
  .object({
    v: z.literal(1),
    memoryId: z.string(),
    owner: z.string(),
    createdAt: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    contentHash: z.string(),
  })
  .openapi("LeafData");

/** A proof bundle (CONTRACT §5). */
export const ProofBundleSchema = z
  .object({
    memoryId: z.string(),
    leafIndex: z.number().int(),
    leafHash: z.string(),
    leafData: LeafDataSchema,
    salt: z.string().openapi({ description: "the 16-byte salt, standard base64" }),
    anchored: z.boolean(),
    checkpoint: z.object({ treeSize: z.number().int(), rootHash: z.string() }).nullable(),
    inclusionProof: z.array(z.string()).nullable(),
    anchor: z
      .object({
        cluster: z.string(),
        programId: z.string(),
        account: z.string(),
        memoryCount: z.number().int(),
        nonce: z.number().int(),
        signature: z.string(),
      })
      .nullable(),
  })
  .openapi("ProofBundle");
