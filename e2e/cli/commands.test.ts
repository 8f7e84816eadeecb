/**
 * `svc`'s command loading (packages/cli/src/cli.ts): a run loads only the module of the command it
 * names, so the table of modules must name every command each module registers, and help,
 * `--version` and unknown commands must still see what they need. In process through `run`, with
 * collected output; no service is needed.
 */
import { Writable } from "node:stream";
import { buildProgram, COMMAND_MODULES, commandName, run } from "@verifiable-memory/cli";
import { describe, expect, it } from "vitest";

/** A writable that keeps what is written. */
function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      callback();
    },
  });
  return Object.assign(stream, { text: () => chunks.join("") });
}

/** Runs `svc argv…` in process: exit status and output. */
async function svc(argv: readonly string[]) {
  const stdout = sink();
  const stderr = sink();
  const code = await run(argv, { env: {}, streams: { stdout, stderr } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe("svc command loading", () => {
  it("names, module by module, exactly the top-level commands each registers, in help order", async () => {
    const rt = {
      env: {},
      streams: { stdout: sink(), stderr: sink() },
      now: () => new Date(),
      exitCode: 0 as const,
    };
    const all = await buildProgram(rt, false);
    expect(all.commands.map((command) => command.name())).toEqual(
      COMMAND_MODULES.flatMap((module) => module.names),
    );
    for (const module of COMMAND_MODULES) {
      const name = module.names[0] as string;
      const one = await buildProgram(rt, false, [name, "--help"]);
      expect(one.commands.map((command) => command.name())).toEqual(module.names);
    }
  });

  it("finds the command word past global options and their values", () => {
    expect(commandName(["recall", "parcel"])).toBe("recall");
    expect(commandName(["--url", "http://x", "--json", "get", "m1"])).toBe("get");
    expect(commandName(["--url=http://x", "forget", "m1"])).toBe("forget");
    expect(commandName(["--", "remember", "-x"])).toBe("remember");
    expect(commandName(["--version"])).toBeUndefined();
    expect(commandName([])).toBeUndefined();
  });

  it("prints the version, the full help, one command's help, and refuses an unknown command", async () => {
    const version = await svc(["--version"]);
    expect([version.code, version.stdout.trim()]).toEqual([0, "0.1.0"]);
    const help = await svc(["--help"]);
    expect(help.code).toBe(0);
    for (const name of COMMAND_MODULES.flatMap((module) => module.names)) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
    const recall = await svc(["--url", "http://localhost:1", "recall", "--help"]);
    expect(recall.code).toBe(0);
    expect(recall.stdout).toMatch(/^Usage: svc recall/m);
    const unknown = await svc(["recal", "parcel"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'recal'.*recall/s);
  });
});
