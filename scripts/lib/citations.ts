/**
 * The citations in the workspace's code and documentation, and what is wrong with them: a
 * `§N.M "Title"` citation must name a heading of docs/protocol.md with exactly that number and
 * title (published standards are cited by name and section, e.g. `RFC 9162 §2.1.3`, and are not
 * checked here); a `docs/<file>.md "Title"` citation must name a heading of that document; and
 * nothing cites documents a reader of the repository does not have (the service contract,
 * issues, the project's working notes).
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WORKSPACE_ROOT } from "./workspace.js";

/** One problem: where, and what is wrong. */
export interface CitationProblem {
  /** Path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the citation's start. */
  readonly line: number;
  readonly message: string;
}

/** A heading of a Markdown document: its number (protocol.md only) and its title. */
interface Heading {
  readonly number: string | null;
  readonly title: string;
}

/**
 * The headings of a Markdown document (outside fenced code): `## §4 Title` and `### 4.5 Title`
 * give a number and a title, any other heading a title only.
 */
export function markdownHeadings(text: string): Heading[] {
  const headings: Heading[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) {
      continue;
    }
    const text = heading[1] as string;
    const numbered = /^§?(\d+(?:\.\d+)*)\.?\s+(.+)$/.exec(text);
    headings.push(
      numbered
        ? { number: numbered[1] as string, title: numbered[2] as string }
        : { number: null, title: text },
    );
  }
  return headings;
}

/**
 * `text` with line breaks inside comments joined, so that a citation wrapped over two comment
 * lines reads as one: a newline, the next line's indentation and its comment leader (`*`, `//`,
 * `#`) become one space. `lineOf(i)` gives the original 1-based line of flattened offset `i`.
 */
function flatten(text: string): { flat: string; lineOf: (offset: number) => number } {
  const starts: number[] = [];
  let flat = "";
  let line = 1;
  const pattern = /\r?\n[ \t]*(?:\*(?!\/)|\/\/|#(?!#))?[ \t]*/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    flat += text.slice(last, match.index);
    starts.push(flat.length);
    flat += " ";
    last = match.index + match[0].length;
  }
  flat += text.slice(last);
  return {
    flat,
    lineOf(offset) {
      line = 1;
      for (const start of starts) {
        if (start >= offset) {
          break;
        }
        line++;
      }
      return line;
    },
  };
}

/** A section citation with a quoted title; group 1 the number, group 2 the title. */
const SECTION_CITATION = /§\s?(\d+(?:\.\d+)*),?\s+"([^"]+)"/g;
/** What may stand right before `§` when a published standard, not the protocol, is cited. */
const STANDARD_BEFORE =
  /(?:RFC\s?\d+|EIP-\d+|C2SP [\w-]+|UAX ?#\d+|ECMA-\d+|FIPS [\d-]+|SP 800-[\w-]+|Standard|IETF [\w-]+|ISO [\d-]+)\W{0,3}$/;
/** A citation of another document of docs/ by heading; group 1 the file, group 2 the title. */
const DOCUMENT_CITATION = /docs\/([\w-]+\.md),?\s+"([^"]+)"/g;
/** Citations of documents a reader of the repository does not have. */
const FOREIGN_CITATIONS: readonly [RegExp, string][] = [
  [/\bcontract\s?§\s?\d+/gi, "cites the service contract"],
  [/CONTRACT\.md/g, "cites CONTRACT.md"],
  [/\bissues?\s?#?\d+(?:\s+items?\s+\d+(?:\s+and\s+\d+)?)?/gi, "cites an issue"],
  [/\(issue:\s*["A-Za-z]/gi, "cites an issue"],
  [/seed-spec|\/work\/shared|STYLE\.md|shared\/research/g, "cites a working document"],
];

/**
 * The problems of the citations in `files` (paths relative to the repository root), reading
 * docs/protocol.md (and any other docs/*.md cited) from the repository.
 */
export function citationProblems(files: readonly string[]): CitationProblem[] {
  const documents = new Map<string, Heading[] | null>();
  const headingsOf = (name: string): Heading[] | null => {
    if (!documents.has(name)) {
      let text: string | null = null;
      try {
        text = readFileSync(join(WORKSPACE_ROOT, "docs", name), "utf8");
      } catch {
        text = null;
      }
      documents.set(name, text === null ? null : markdownHeadings(text));
    }
    return documents.get(name) ?? null;
  };
  const protocol = headingsOf("protocol.md") ?? [];
  const problems: CitationProblem[] = [];
  for (const file of files) {
    const { flat, lineOf } = flatten(readFileSync(join(WORKSPACE_ROOT, file), "utf8"));
    const report = (offset: number, message: string) =>
      problems.push({ file, line: lineOf(offset), message });
    for (const match of flat.matchAll(SECTION_CITATION)) {
      if (STANDARD_BEFORE.test(flat.slice(Math.max(0, match.index - 30), match.index))) {
        continue;
      }
      const [, number, title] = match as unknown as [string, string, string];
      if (protocol.some((h) => h.number === number && h.title === title)) {
        continue;
      }
      const actual = protocol.find((h) => h.number === number);
      const named = protocol.find((h) => h.title === title);
      report(
        match.index,
        `cites §${number} "${title}", which is not a heading of docs/protocol.md` +
          (actual ? ` (its §${number} is "${actual.title}")` : ` (it has no §${number})`) +
          (named && named.number !== null ? `; "${title}" is §${named.number}` : ""),
      );
    }
    for (const match of flat.matchAll(DOCUMENT_CITATION)) {
      const [, name, title] = match as unknown as [string, string, string];
      if (name === "protocol.md" && /§\s?\d/.test(flat.slice(match.index, match.index + 40))) {
        continue;
      }
      const headings = headingsOf(name);
      if (headings === null) {
        report(match.index, `cites docs/${name}, which does not exist`);
      } else if (!headings.some((h) => h.title === title)) {
        report(
          match.index,
          `cites docs/${name} "${title}", which is not a heading of docs/${name}`,
        );
      }
    }
    for (const [pattern, what] of FOREIGN_CITATIONS) {
      for (const match of flat.matchAll(pattern)) {
        report(match.index, `${what} ("${match[0]}"): cite docs/ or a published standard instead`);
      }
    }
  }
  return problems;
}
