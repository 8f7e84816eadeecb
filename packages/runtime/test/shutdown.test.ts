/**
 * The shutdown coordinator and runService in real child processes (test/fixtures/service.ts):
 * hooks in reverse registration order on SIGTERM, the timeout, a second signal exiting at once,
 * a signal during start-up, a failed start-up, and the one bad-configuration format; and the
 * launcher's options (test/fixtures/launcher.ts): second signal ignored, no timeout, own lines,
 * own exit code.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/service.ts", import.meta.url));
const launcher = fileURLToPath(new URL("./fixtures/launcher.ts", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "runtime-shutdown-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  /** The `msg` of every JSON line on stdout (a plain line as is), in order. */
  messages(): string[];
  /** Resolves once stdout holds a line whose msg is `msg`. */
  waitFor(msg: string): Promise<void>;
}

function run(env: Record<string, string>, script = fixture): Run {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  const messages = () =>
    stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) =>
        line.startsWith("{") ? String((JSON.parse(line) as { msg: unknown }).msg) : line,
      );
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
    for (const waiter of waiters.splice(0)) {
      waiter();
    }
  });
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal })),
  );
  const waitFor = (msg: string): Promise<void> =>
    new Promise((done, fail) => {
      const check = () => {
        if (messages().includes(msg)) {
          done();
        } else {
          waiters.push(check);
        }
      };
      void exited.then(() => fail(new Error(`exited before "${msg}": ${stdout}${stderr}`)));
      check();
    });
  return { child, exited, stdout: () => stdout, stderr: () => stderr, messages, waitFor };
}

describe("runService", () => {
  it("runs the hooks in reverse registration order on SIGTERM and exits 0", async () => {
    const service = run({});
    await service.waitFor("started");
    service.child.kill("SIGTERM");
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.messages()).toEqual([
      "started",
      "fixture stopping",
      "hook third",
      "hook second",
      "hook first",
      "fixture stopped",
    ]);
  });

  it("exits 1 when the hooks outlast the timeout, without running the rest", async () => {
    const service = run({ FIXTURE_HANG: "1", FIXTURE_TIMEOUT_MS: "300" });
    await service.waitFor("started");
    service.child.kill("SIGINT");
    expect(await service.exited).toEqual({ code: 1, signal: null });
    const messages = service.messages();
    expect(messages).toContain("shutdown timed out");
    expect(messages).toContain("hook second");
    expect(messages).not.toContain("hook first");
  });

  it("exits at once with 128 + the signal's number on a second signal", async () => {
    const service = run({ FIXTURE_HANG: "1", FIXTURE_TIMEOUT_MS: "60000" });
    await service.waitFor("started");
    service.child.kill("SIGTERM");
    await service.waitFor("hook second");
    service.child.kill("SIGTERM");
    expect(await service.exited).toEqual({ code: 143, signal: null });
    expect(service.messages()).toContain("fixture: second signal, exiting at once");
    expect(service.messages()).not.toContain("hook first");
  });

  it("holds a signal that arrives during start-up and stops once start-up has finished", async () => {
    const startFile = join(scratch, "start-now");
    const service = run({ FIXTURE_START_FILE: startFile });
    await service.waitFor("starting");
    service.child.kill("SIGTERM");
    await service.waitFor("fixture: stopping once start-up has finished");
    writeFileSync(startFile, "");
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.messages().slice(-6)).toEqual([
      "started",
      "fixture stopping",
      "hook third",
      "hook second",
      "hook first",
      "fixture stopped",
    ]);
  });

  it("on a failed start-up runs the hooks registered so far and exits 1 with the error", async () => {
    const service = run({ FIXTURE_FAIL_START: "1" });
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.messages()).toEqual(["hook first"]);
    const [line] = service.stderr().trim().split("\n");
    expect(JSON.parse(line ?? "")).toMatchObject({
      level: 60,
      service: "fixture",
      msg: "fixture failed to start: the database is unreachable",
    });
  });

  it("on a ConfigError writes one fatal line naming every variable and exits 1", async () => {
    const service = run({ FIXTURE_CONFIG_ERROR: "1" });
    expect(await service.exited).toEqual({ code: 1, signal: null });
    const lines = service.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: 60,
      service: "fixture",
      variables: ["A_VAR", "B_VAR"],
      msg: "invalid configuration:\n  A_VAR: is required\n  B_VAR: must be a port",
    });
  });
});

describe("ShutdownCoordinator as a launcher uses it", () => {
  it("ignores a second signal while stopping, waits for the hooks without a limit, prints its own lines", async () => {
    const releaseFile = join(scratch, "release");
    const service = run({ FIXTURE_RELEASE_FILE: releaseFile }, launcher);
    await service.waitFor("started");
    service.child.kill("SIGTERM");
    await service.waitFor("hook second");
    service.child.kill("SIGINT");
    await service.waitFor("got SIGINT");
    writeFileSync(releaseFile, "");
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.messages()).toEqual([
      "started",
      "[launcher] stopping…",
      "hook second",
      "got SIGINT",
      "hook first",
      "[launcher] stopped",
    ]);
    expect(service.stderr()).toBe("");
  });

  it("exits with the code given to stop() when every hook succeeds", async () => {
    const service = run({ FIXTURE_STOP_CODE: "1" }, launcher);
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.messages()).toEqual([
      "started",
      "[launcher] stopping…",
      "hook second",
      "hook first",
      "[launcher] stopped",
    ]);
  });
});
