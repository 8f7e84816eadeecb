import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, LogLevelSchema, type LogOutput } from "../src/index.js";

/** A stream that keeps what is written, a terminal or not. */
function capture(isTTY: boolean): { output: LogOutput; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  Object.defineProperty(stream, "isTTY", { value: isTTY });
  return { output: stream as unknown as LogOutput, text: () => chunks.join("") };
}

describe("createLogger", () => {
  it("writes one JSON object per line when the output is not a terminal", () => {
    const { output, text } = capture(false);
    const logger = createLogger({ service: "core-api", output });
    logger.info({ port: 8787 }, "core-api listening");
    const lines = text().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: 30,
      service: "core-api",
      pid: process.pid,
      port: 8787,
      msg: "core-api listening",
    });
  });

  it("writes readable lines, not JSON, on a terminal", () => {
    const { output, text } = capture(true);
    const logger = createLogger({ service: "core-api", output });
    logger.warn({ port: 8787 }, "slow start");
    const written = text();
    expect(written).toContain("core-api: slow start");
    expect(written).toContain("port");
    expect(written).toMatch(/WARN/);
    expect(() => JSON.parse(written)).toThrow();
  });

  it("drops what is below the level", () => {
    const { output, text } = capture(false);
    const logger = createLogger({ service: "anchor-service", level: "warn", output });
    logger.info("hidden");
    logger.debug("hidden too");
    logger.warn("shown");
    const lines = text().trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(["shown"]);
  });
});

describe("LogLevelSchema", () => {
  it("defaults to info and refuses an unknown level", () => {
    expect(LogLevelSchema.parse(undefined)).toBe("info");
    expect(LogLevelSchema.parse("debug")).toBe("debug");
    expect(LogLevelSchema.safeParse("verbose").success).toBe(false);
  });
});
