/**
 * The citations of the workspace lead somewhere (scripts/lib/citations.ts): every
 * `§N.M "Title"` names a heading of docs/protocol.md with exactly that number and title, every
 * `docs/<file>.md "Title"` a heading of that document, and nothing cites the service contract,
 * issues or working notes. The checker itself is tested on known texts first.
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { citationProblems, markdownHeadings } from "../lib/citations.js";
import { documentationFiles, sourceFiles } from "../lib/source-files.js";
import { WORKSPACE_ROOT } from "../lib/workspace.js";

const scratch = mkdtempSync(join(WORKSPACE_ROOT, "scripts", "test", ".citations-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The problems the checker finds in `text`, as `line: message`. */
function problemsIn(text: string): string[] {
  const path = join(scratch, "sample.ts");
  writeFileSync(path, text);
  return citationProblems([relative(WORKSPACE_ROOT, path)]).map((p) => `${p.line}: ${p.message}`);
}

describe("the citation checker", () => {
  it("reads numbered and plain headings, outside fenced code", () => {
    expect(
      markdownHeadings(
        "# Protocol\n## §4 Memories\n### 4.5 Recall\n```\n## not one\n```\n## Notes\n",
      ),
    ).toEqual([
      { number: null, title: "Protocol" },
      { number: "4", title: "Memories" },
      { number: "4.5", title: "Recall" },
      { number: null, title: "Notes" },
    ]);
  });

  it("accepts true citations and published standards, wrapped or not", () => {
    expect(
      problemsIn(
        [
          '/** docs/protocol.md §4.5 "Recall"; §1.4 "Error codes"; RFC 9162 §2.1.3 "x" */',
          '/**\n * a long line (docs/protocol.md §3.5 "Scopes, expiry and\n * confinement")\n */',
          '// docs/data-model.md "Recall segments"',
        ].join("\n"),
      ),
    ).toEqual([]);
  });

  it("names the file, line, citation and the heading it meant", () => {
    const problems = problemsIn(
      [
        "// nothing here",
        '// docs/protocol.md §4 "Recall" and §4.5 "Search"',
        '/** see §99 "Nowhere" */',
        '// docs/data-model.md "No such heading"',
        "// contract §14, issue 5 item 2, (issue: a title)",
      ].join("\n"),
    );
    expect(problems).toEqual([
      '2: cites §4 "Recall", which is not a heading of docs/protocol.md (its §4 is "Memories and encryption"); "Recall" is §4.5',
      '2: cites §4.5 "Search", which is not a heading of docs/protocol.md (its §4.5 is "Recall")',
      '3: cites §99 "Nowhere", which is not a heading of docs/protocol.md (it has no §99)',
      '4: cites docs/data-model.md "No such heading", which is not a heading of docs/data-model.md',
      '5: cites the service contract ("contract §14"): cite docs/ or a published standard instead',
      '5: cites an issue ("issue 5 item 2"): cite docs/ or a published standard instead',
      '5: cites an issue ("(issue: a"): cite docs/ or a published standard instead',
    ]);
  });
});

describe("the workspace's citations", () => {
  it("every citation in code and documentation leads to a heading that exists", () => {
    // The checker and its tests hold wrong citations on purpose.
    const own = new Set(["scripts/lib/citations.ts", "scripts/test/citations.test.ts"]);
    const files = [...sourceFiles(), ...documentationFiles()].filter((file) => !own.has(file));
    expect(files.length).toBeGreaterThan(100);
    const problems = citationProblems(files).map((p) => `${p.file}:${p.line}: ${p.message}`);
    expect(problems, "citations that lead nowhere").toEqual([]);
  });
});
