/**
 * The commands the README and docs name, run exactly as written: `pnpm svc-verify --help`,
 * `pnpm rotate-master-key --help`, `pnpm demo --help` and `pnpm svc --help` answer and exit 0
 * (pnpm is on PATH wherever the README's commands run).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function pnpm(...args: string[]) {
  return spawnSync("pnpm", ["-s", ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
}

describe("documented commands", () => {
  it("pnpm svc-verify runs the auditor CLI", () => {
    const result = pnpm("svc-verify", "--help");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("usage: svc-verify --rpc <url>");
  });

  it("pnpm rotate-master-key --help lists its flags and the settings it reads", () => {
    const result = pnpm("rotate-master-key", "--help");
    expect(result.status).toBe(0);
    for (const word of ["--batch-size", "MASTER_ENCRYPTION_KEYS_PREVIOUS", "ENV_FILE"]) {
      expect(result.stdout).toContain(word);
    }
  });

  it("pnpm demo --help lists its flags", () => {
    const result = pnpm("demo", "--help");
    expect(result.status).toBe(0);
    for (const flag of ["--api", "--rpc", "--memories", "--sample", "--keypair", "ENV_FILE"]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it("pnpm svc --help lists the agent commands of docs/agents.md", () => {
    const result = pnpm("svc", "--help");
    expect(result.status).toBe(0);
    for (const command of ["login", "remember", "recall", "verify", "watch", "mcp", "history"]) {
      expect(result.stdout).toContain(command);
    }
  });
});
