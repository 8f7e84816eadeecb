/**
 * `svc keygen [--out PATH]` run as a user runs it (the bin in a child process with its own HOME):
 * a Solana CLI keypair file at ~/.config/solana/id.json or `--out`, mode 0600, whose public half
 * matches its seed; never an overwrite, even of a file that is not a keypair.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliUser, jsonError, runSvc, runSvcJson } from "./_svc.js";

let scratch: string;
let user: CliUser;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-keygen-"));
  const home = await mkdtemp(join(scratch, "home-"));
  // A user with no keypair yet (newCliUser would write one).
  user = { home, config: join(home, "xdg"), keypair: Keypair.generate(), keypairPath: "" };
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The keypair in a Solana CLI keypair file, checked as the chain tools check it. */
async function keypairIn(path: string): Promise<Keypair> {
  const bytes = JSON.parse(await readFile(path, "utf8")) as number[];
  expect(bytes).toHaveLength(64);
  return Keypair.fromSecretKey(Uint8Array.from(bytes));
}

describe("svc keygen", () => {
  it("writes ~/.config/solana/id.json with mode 0600, and never overwrites it", async () => {
    const written = await runSvcJson<{ path: string; publicKey: string }>("http://unused", user, [
      "keygen",
    ]);
    const path = join(user.home, ".config", "solana", "id.json");
    expect(written.path).toBe(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await keypairIn(path)).publicKey.toBase58()).toBe(written.publicKey);

    const before = await readFile(path, "utf8");
    const again = await runSvc("http://unused", user, ["keygen", "--json"]);
    expect(again.code).toBe(2);
    expect(jsonError(again)).toMatchObject({ code: "usage" });
    expect(jsonError(again).message).toMatch(/already exists.*never overwrites/);
    expect(await readFile(path, "utf8")).toBe(before);
  });

  it("writes to --out (with ~ expanded and folders created), in human form too", async () => {
    const run = await runSvc("http://unused", user, ["keygen", "--out", "~/keys/agent/a.json"]);
    expect(run.code, run.stderr).toBe(0);
    const path = join(user.home, "keys", "agent", "a.json");
    const keypair = await keypairIn(path);
    expect(run.stdout).toContain(`Wrote a new keypair to ${path}`);
    expect(run.stdout).toContain(`Public key: ${keypair.publicKey.toBase58()}`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Two runs make two different keys.
    const other = await runSvcJson<{ publicKey: string }>("http://unused", user, [
      "keygen",
      "--out",
      join(scratch, "b.json"),
    ]);
    expect(other.publicKey).not.toBe(keypair.publicKey.toBase58());
  });

  it("refuses to replace any existing file, keypair or not", async () => {
    const path = join(scratch, "notes.txt");
    await writeFile(path, "not a keypair");
    const run = await runSvc("http://unused", user, ["keygen", "-o", path]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("already exists");
    expect(await readFile(path, "utf8")).toBe("not a keypair");
  });
});
