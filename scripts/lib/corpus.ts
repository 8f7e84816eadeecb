/**
 * The demo's corpus: real text no one here wrote, the README files of the installed dependencies,
 * split into paragraphs with their source file and section heading as metadata.
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** One paragraph to store as a memory. */
export interface CorpusEntry {
  readonly content: string;
  readonly metadata: { source: string; section: string };
}

/**
 * Reads README.md of the packages installed under `<root>/node_modules/.pnpm`, in name order,
 * and splits them into paragraphs of 80–2 000 characters (code fences and tables skipped).
 * @returns at most `limit` entries.
 */
export function readCorpus(root: string, limit: number): CorpusEntry[] {
  const store = join(root, "node_modules", ".pnpm");
  const entries: CorpusEntry[] = [];
  for (const dir of readdirSync(store).sort()) {
    const modules = join(store, dir, "node_modules");
    for (const pkg of listPackages(modules)) {
      const readme = join(modules, pkg, "README.md");
      if (!isFile(readme)) {
        continue;
      }
      entries.push(...paragraphs(readFileSync(readme, "utf8"), `${pkg}/README.md`));
      if (entries.length >= limit) {
        return entries.slice(0, limit);
      }
    }
  }
  return entries;
}

function listPackages(modules: string): string[] {
  let names: string[];
  try {
    names = readdirSync(modules);
  } catch {
    return [];
  }
  return names.flatMap((name) =>
    name.startsWith("@") ? safeList(join(modules, name)).map((n) => `${name}/${n}`) : [name],
  );
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function paragraphs(text: string, source: string): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  let section = "(top)";
  let inFence = false;
  for (const block of text.replace(/\r\n/g, "\n").split(/\n\s*\n/)) {
    const trimmed = block.trim();
    const fences = (trimmed.match(/```/g) ?? []).length;
    if (inFence || trimmed.startsWith("```")) {
      inFence = fences % 2 === 1 ? !inFence : inFence;
      continue;
    }
    const heading = /^#{1,6}\s+(.+)$/m.exec(trimmed);
    if (heading?.[1] && trimmed.startsWith("#")) {
      section = heading[1].slice(0, 64);
      continue;
    }
    if (
      trimmed.startsWith("|") ||
      trimmed.startsWith("<") ||
      trimmed.length < 80 ||
      trimmed.length > 2000
    ) {
      continue;
    }
    out.push({ content: trimmed, metadata: { source, section } });
  }
  return out;
}
