/**
 * `pnpm start`'s log lines: pretty for a person at a terminal, the apps' JSON unchanged otherwise.
 */
import { describe, expect, it } from "vitest";
import { logLineFormatter, prettyLine } from "../lib/log-lines.js";

const RECORD = JSON.stringify({
  level: 30,
  time: Date.parse("2026-11-25T10:00:00.000Z"),
  pid: 42,
  hostname: "vm",
  name: "core-api",
  requestId: "r-1",
  method: "GET",
  path: "/healthz",
  status: 200,
  msg: "request",
});

describe("log lines", () => {
  it("keeps JSON lines unchanged when the output is not a terminal", () => {
    expect(logLineFormatter({ isTTY: false })(RECORD)).toBe(RECORD);
    expect(logLineFormatter({})(RECORD)).toBe(RECORD);
  });

  it("pretty-prints pino records for a terminal", () => {
    const line = logLineFormatter({ isTTY: true })(RECORD);
    expect(line).not.toContain('{"level"');
    expect(line).toContain("INFO");
    expect(line).toContain("request");
    expect(line).toContain("/healthz");
    expect(line).not.toContain("hostname");
    expect(line).not.toContain("\n");
  });

  it("shows other lines as they are", () => {
    for (const line of ["[start] stopped", "{not json", '{"no":"level"}', ""]) {
      expect(prettyLine(line)).toBe(line);
    }
  });
});
