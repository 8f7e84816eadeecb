/**
 * Human-readable renderings of API objects (without `--json`).
 * @module
 */
import type { CreatedMemory, Memory, ProofBundle } from "@verifiable-memory/client";

/** Indents every line of `text` by `by` spaces. */
export function indent(text: string, by = 2): string {
  const pad = " ".repeat(by);
  return text
    .split("\n")
    .map((line) => `${pad}${line}`)
    .join("\n");
}

/** `anchored` or `pending` (not yet covered by an anchored checkpoint). */
function anchoredText(anchored: boolean): string {
  return anchored ? "anchored" : "pending";
}

/** The header line of a memory: id, time, leaf, anchoring, namespace, version links. */
export function memoryHeader(memory: CreatedMemory | Memory): string {
  const parts = [
    memory.id,
    memory.createdAt,
    `leaf ${memory.leafIndex}`,
    anchoredText(memory.anchored),
  ];
  if (memory.namespace) {
    parts.push(`ns ${memory.namespace}`);
  }
  if (memory.supersedes) {
    parts.push(`supersedes ${memory.supersedes}`);
  }
  if (memory.supersededBy) {
    parts.push(`superseded by ${memory.supersededBy}`);
  }
  if ("score" in memory && typeof memory.score === "number") {
    parts.push(`score ${memory.score.toFixed(3)}`);
  }
  return parts.join("  ");
}

/** A memory: its header, its metadata (when not empty) and its content, indented. */
export function memoryText(memory: Memory): string {
  const lines = [memoryHeader(memory)];
  if (Object.keys(memory.metadata).length > 0) {
    lines.push(indent(`meta ${JSON.stringify(memory.metadata)}`));
  }
  lines.push(indent(memory.content));
  return lines.join("\n");
}

/** A proof bundle's summary: where the leaf is and where its checkpoint was anchored. */
export function proofSummary(bundle: ProofBundle): string[] {
  const lines = [
    `memory     ${bundle.memoryId}`,
    `leaf       ${bundle.leafIndex} (${bundle.leafHash})`,
  ];
  if (!bundle.anchored || !bundle.checkpoint || !bundle.anchor) {
    lines.push("anchored   no: not yet covered by an anchored checkpoint");
    return lines;
  }
  lines.push(
    `checkpoint size ${bundle.checkpoint.treeSize}, root ${bundle.checkpoint.rootHash}`,
    `anchor     ${bundle.anchor.cluster} program ${bundle.anchor.programId}`,
    `account    ${bundle.anchor.account} (nonce ${bundle.anchor.nonce})`,
    `tx         ${bundle.anchor.signature}`,
  );
  return lines;
}
