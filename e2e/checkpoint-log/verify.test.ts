/**
 * Verifying a memory anchored only through the checkpoint log, end to end (docs/protocol.md §6.5,
 * §6.7, §13.5): core-api over real HTTP on real PostgreSQL with a log key, the local chain with
 * the real commitment program, and the anchor service's own batched sweep (USER_ANCHOR_INTERVAL_MS
 * one hour, so the owner's account keeps its first checkpoint) and checkpoint-log step. The bundle
 * the API serves is then verified against the chain by `svc-verify` (the bin, spawned: the key
 * pinned with --log-key, or taken from GET /info with --api), by the SDK (`verifyProof` with the
 * key pinned, `verify` with the client's base URL), by `svc verify --bundle` (the CLI, spawned), by
 * the MCP backend, and by the server's
 * `GET /memories/:id/verify`; a tampered bundle and a foreign key are refused. Once the checkpoint
 * log grows past the saved bundle, it is `stale_checkpoint` alone and bridged with `--api` by the
 * public `GET /tlog/consistency`.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Keypair } from "@solana/web3.js";
import type { UserAnchorState } from "@verifiable-memory/anchor-service";
import { createClient, type ProofBundle, type SvcClient } from "@verifiable-memory/client";
import { verify, verifyProof } from "@verifiable-memory/client/verify";
import { clientBackend } from "@verifiable-memory/mcp";
import { toHex } from "@verifiable-memory/merkle-log";
import { generateSigner } from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Chain, CoreApp } from "../_apps.js";
import { newCliUser, runSvc } from "../cli/_svc.js";
import {
  type CheckpointLogService,
  ORIGIN,
  signer,
  startCheckpointLogService,
} from "./_service.js";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../packages/verifier/bin/svc-verify.js", import.meta.url));
let service: CheckpointLogService;
let t: CoreApp;
let chain: Chain;
let dir: string;

beforeAll(async () => {
  service = await startCheckpointLogService();
  ({ t, chain, dir } = service);
});
afterAll(async () => {
  await service?.close();
});

/** One interval of the anchor service's leader: the batched sweep, then the checkpoint-log step. */
function interval(state: UserAnchorState) {
  return service.interval(state);
}

/** svc-verify on `bundle` with `flags`: its exit status and output. */
async function svcVerify(bundle: unknown, flags: readonly string[]) {
  const file = join(dir, `bundle-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(bundle));
  return run(process.execPath, [BIN, "--rpc", chain.url, ...flags, file]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe("a memory anchored only through the checkpoint log, verified against the chain", () => {
  let client: SvcClient;
  let owner: string;
  let bundle: ProofBundle;
  const content = "anchored through the checkpoint log";
  let id: string;
  const state: UserAnchorState = { lastAt: null };

  it("is written, the sweep leaves the owner's account behind, and the checkpoint log anchors it", async () => {
    const keypair = Keypair.generate();
    owner = keypair.publicKey.toBase58();
    client = createClient({ baseUrl: t.url });
    await client.signInWithKeypair(keypair);
    await client.remember("first");
    expect((await interval(state)).log).toMatchObject({ outcome: "anchored" });
    id = (await client.remember(content)).id;
    const { report, log } = await interval(state);
    expect(report.outcomes).toMatchObject([
      { outcome: "skipped", reason: "user_anchor_interval", treeSize: 2 },
    ]);
    expect(log).toMatchObject({ outcome: "anchored", appended: 1 });
    expect((await chain.client.readCommitment(owner))?.memoryCount).toBe(1);
    bundle = await client.prove(id);
    expect(bundle).toMatchObject({ anchored: true, checkpoint: null, anchor: null });
    expect(bundle.checkpointLog).not.toBeNull();
  });

  it("svc-verify: VERIFIED with the log key pinned, or with the keys of GET /info; refused with another key or a tampered entry", async () => {
    const authority = chain.authority.publicKey.toBase58();
    const pinned = await svcVerify({ ...bundle, content }, [
      "--authority",
      authority,
      "--log-key",
      signer.vkey,
      "--json",
    ]);
    expect(pinned.code).toBe(0);
    const result = JSON.parse(pinned.stdout);
    expect(result).toMatchObject({
      verified: true,
      path: "checkpoint_log",
      logKey: signer.vkey,
      contentChecked: true,
      checkpointLog: {
        account: chain.client.checkpointLogAddress,
        authority,
        size: bundle.checkpointLog?.treeSize,
        root: bundle.checkpointLog?.rootHash,
      },
    });
    const viaInfo = await svcVerify(bundle, ["--api", t.url]);
    expect(viaInfo).toMatchObject({ code: 0, stdout: expect.stringMatching(/^VERIFIED\n/) });
    const foreign = await svcVerify(bundle, ["--log-key", generateSigner(ORIGIN).vkey]);
    expect(foreign).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^NOT VERIFIED: note_signature_invalid\n/),
    });
    const path = bundle.checkpointLog as NonNullable<ProofBundle["checkpointLog"]>;
    const forged = {
      ...bundle,
      checkpointLog: { ...path, entry: path.entry.replace("\n2\n", "\n1\n") },
    };
    const refused = await svcVerify(forged, ["--log-key", signer.vkey]);
    expect(refused).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^NOT VERIFIED: entry_mismatch\n/),
    });
  });

  it("svc verify --bundle: VERIFIED with --log-key, NOT VERIFIED (exit 1) with another key", async () => {
    const file = join(dir, "cli-bundle.json");
    await writeFile(file, JSON.stringify(bundle));
    const user = await newCliUser(dir);
    const args = ["verify", "--bundle", file, "--rpc", chain.url, "--json", "--log-key"];
    const ok = await runSvc(t.url, user, [...args, signer.vkey]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ verified: true, passed: 1, total: 1 });
    const foreign = await runSvc(t.url, user, [...args, generateSigner(ORIGIN).vkey]);
    expect(foreign.code).toBe(1);
    expect(JSON.parse(foreign.stdout)).toMatchObject({
      verified: false,
      results: [{ reason: "note_signature_invalid" }],
    });
  });

  it("the SDK (verifyProof pinned, verify through the client), the MCP backend and GET /memories/:id/verify agree", async () => {
    const pinned = await verifyProof(bundle, {
      rpcUrl: chain.url,
      authority: chain.authority.publicKey.toBase58(),
      logKeys: [signer.vkey],
      content,
    });
    expect(pinned).toMatchObject({
      ok: true,
      path: "checkpoint_log",
      logKey: signer.vkey,
      contentChecked: true,
    });
    const throughClient = await verify(client, id, { rpcUrl: chain.url });
    expect(throughClient).toMatchObject({ ok: true, path: "checkpoint_log", contentChecked: true });
    const wrong = await verifyProof(bundle, {
      rpcUrl: chain.url,
      logKeys: [generateSigner(ORIGIN).vkey],
    });
    expect(wrong).toMatchObject({ ok: false, reason: "note_signature_invalid" });

    const mcp = await clientBackend(client, { rpcUrl: chain.url, logKeys: [signer.vkey] }).verify(
      id,
    );
    expect(mcp).toMatchObject({
      verified: true,
      anchored: true,
      reason: null,
      checkedBy: "client",
    });

    const account = await chain.client.readCheckpointLog();
    const server = await client.verifyOnServer(id);
    expect(server).toEqual({
      verified: true,
      reason: null,
      path: "checkpoint_log",
      checkedAgainst: null,
      checkpointLog: {
        cluster: "localnet",
        programId: chain.client.programId,
        account: chain.client.checkpointLogAddress,
        size: account?.size,
        nonce: account?.nonce,
        rootHash: toHex(account?.root ?? new Uint8Array()),
      },
    });
    const covered = await client.verifyOnServer((await client.list()).items.at(-1)?.id ?? "");
    expect(covered).toMatchObject({ verified: true, path: "account", checkpointLog: null });
  });

  it("once the checkpoint log grows, the saved bundle is stale alone and bridged by GET /tlog/consistency with --api", async () => {
    await client.remember("later");
    const { log } = await interval(state);
    expect(log).toMatchObject({ outcome: "anchored", appended: 1 });
    const account = await chain.client.readCheckpointLog();
    const from = bundle.checkpointLog?.treeSize ?? 0;
    expect(account?.size).toBe(from + 1);
    const stale = await svcVerify(bundle, ["--log-key", signer.vkey]);
    expect(stale).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^NOT VERIFIED: stale_checkpoint\n/),
    });
    const bridged = await svcVerify(bundle, ["--log-key", signer.vkey, "--api", t.url, "--json"]);
    expect(bridged.code).toBe(0);
    expect(JSON.parse(bridged.stdout)).toMatchObject({
      verified: true,
      path: "checkpoint_log",
      bridged: { from, to: from + 1 },
      checkpointLog: { size: from + 1, root: toHex(account?.root ?? new Uint8Array()) },
    });
    expect(await verify(client, id, { rpcUrl: chain.url })).toMatchObject({
      ok: true,
      path: "checkpoint_log",
    });
    expect(await client.verifyOnServer(id)).toMatchObject({
      verified: true,
      path: "checkpoint_log",
      checkpointLog: { size: from + 1 },
    });
  });
});
