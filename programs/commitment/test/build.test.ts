/**
 * Reproducible build and linker refusals. Needs clang (Debian: apt-get install -y clang); the
 * suite is skipped, visibly, on machines without it.
 * Source: programs/commitment/README.md ("Build", "Reproducibility").
 * @module
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const hasClang = spawnSync("clang", ["--version"]).status === 0;
const workDir = mkdtempSync(join(tmpdir(), "commitment-build-test-"));

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Compiles `source` with the program's flags and links it; returns the linker's result. */
function compileAndLink(name: string, source: string): { status: number | null; stderr: string } {
  const c = join(workDir, `${name}.c`);
  const o = join(workDir, `${name}.o`);
  writeFileSync(c, source);
  const cc = spawnSync("clang", [
    "-target",
    "bpf",
    "-mcpu=v1",
    "-O2",
    "-fno-builtin",
    "-ffreestanding",
    "-nostdlib",
    "-fno-stack-protector",
    "-c",
    c,
    "-o",
    o,
  ]);
  expect(cc.status, cc.stderr.toString()).toBe(0);
  const link = spawnSync("python3", [
    join(packageDir, "tools/sbpf_link.py"),
    o,
    join(workDir, `${name}.so`),
  ]);
  return { status: link.status, stderr: link.stderr.toString() };
}

describe.skipIf(!hasClang)("build (clang present)", () => {
  test("verify-build.sh rebuilds commitment.so byte-identically", () => {
    const run = spawnSync("bash", [join(packageDir, "verify-build.sh")], { encoding: "utf8" });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const hashes = [...run.stdout.matchAll(/commitment\.so: ([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(hashes).toHaveLength(2);
    expect(hashes[0]).toBe(hashes[1]);
  });

  test("the linker refuses writable globals", () => {
    const result = compileAndLink(
      "writable",
      "extern void sol_log_(const char *, unsigned long long);\n" +
        "unsigned long long counter;\n" +
        "unsigned long long entrypoint(const unsigned char *input) {\n" +
        '  counter++; sol_log_("x", 1); return counter;\n}\n',
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/writable section \.bss/);
  });

  test("the linker refuses undefined symbols that are not syscalls", () => {
    const result = compileAndLink(
      "unknown",
      "extern unsigned long long not_a_syscall(void);\n" +
        "unsigned long long entrypoint(const unsigned char *input) { return not_a_syscall(); }\n",
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/not_a_syscall is not an SBPF syscall/);
  });
});
