/**
 * `svc verify --bundle` says which of the API and the chain it could not reach: an export made
 * before a later anchoring needs the API's consistency proof, so with the API stopped those lines
 * are unknown because of the API (not "the chain could not be read"); with the chain unreachable,
 * the chain is named instead. The bin runs as a user runs it, against core-api in this process on real
 * PostgreSQL and the local chain.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";
import { type CliUser, newCliUser, runSvc, runSvcJson } from "./_svc.js";

let t: CoreApp;
let apiStopped = false;
let chain: Chain;
let scratch: string;
let user: CliUser;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-verify-offline-"));
  chain = await startChain(join(scratch, "chain"));
  t = await startCoreApi({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
  user = await newCliUser(scratch);
});
afterAll(async () => {
  if (!apiStopped) {
    await t?.close();
  }
  await chain?.close();
  await rm(scratch, { recursive: true, force: true });
});

interface FileResult {
  verified: boolean;
  passed: number;
  unknown: number;
  unreachable: { chain: string | null; api: string | null };
  results: { reason: string | null }[];
}

describe("svc verify --bundle, offline", () => {
  it("names the API when an old bundle's consistency proof cannot be fetched, and the chain when it cannot be read", async () => {
    await runSvcJson(t.url, user, ["login"]);
    for (const text of ["first", "second"]) {
      await runSvcJson(t.url, user, ["remember", `an ${text} note`]);
    }
    await chain.anchorNow(t.db);
    const exported = await runSvc(t.url, user, ["export"]);
    expect(exported.code, exported.stderr).toBe(0);
    const file = join(user.home, "export.jsonl");
    await writeFile(file, exported.stdout);
    // A later memory, anchored: the export's bundles are now older than the chain's root.
    await runSvcJson(t.url, user, ["remember", "a later note"]);
    await chain.anchorNow(t.db);
    const bridged = await runSvcJson<FileResult>(t.url, user, [
      "verify",
      "--bundle",
      file,
      "--rpc",
      chain.url,
    ]);
    expect(bridged).toMatchObject({ verified: true, passed: 2, unknown: 0 });

    await t.close();
    apiStopped = true;
    const apiDown = await runSvc(t.url, user, ["verify", "--bundle", file, "--rpc", chain.url]);
    expect(apiDown.code).toBe(3);
    expect(apiDown.stdout).toContain(`2 unknown: anchored before the chain's current root`);
    expect(apiDown.stdout).toContain(`could not be fetched from ${t.url}`);
    expect(apiDown.stdout).not.toMatch(/chain could not be read/);
    const apiDownJson = await runSvc(t.url, user, [
      "verify",
      "--bundle",
      file,
      "--rpc",
      chain.url,
      "--json",
    ]);
    const parsed = JSON.parse(apiDownJson.stdout) as FileResult;
    expect(parsed).toMatchObject({ verified: false, unknown: 2 });
    expect(parsed.unreachable).toEqual({ chain: null, api: t.url });
    expect(parsed.results.map((r) => r.reason)).toEqual([
      "consistency_unavailable",
      "consistency_unavailable",
    ]);

    const chainDown = await runSvc(t.url, user, [
      "verify",
      "--bundle",
      file,
      "--rpc",
      "http://127.0.0.1:1",
      "--json",
    ]);
    expect(chainDown.code).toBe(3);
    const chainParsed = JSON.parse(chainDown.stdout) as FileResult;
    expect(chainParsed.unreachable).toEqual({ chain: "http://127.0.0.1:1", api: null });
    const human = await runSvc(t.url, user, [
      "verify",
      "--bundle",
      file,
      "--rpc",
      "http://127.0.0.1:1",
    ]);
    expect(human.stdout).toContain("2 unknown: the chain could not be read at http://127.0.0.1:1");
    expect(human.stdout).not.toMatch(/consistency proof/);
  });
});
