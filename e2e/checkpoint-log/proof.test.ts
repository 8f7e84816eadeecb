import { Connection, Keypair } from "@solana/web3.js";
import type { UserAnchorState } from "@verifiable-memory/anchor-service";
import { createClient, type ProofBundle, type SvcClient } from "@verifiable-memory/client";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { fromHex, hashLeaf, rootFromInclusionProof, toHex } from "@verifiable-memory/merkle-log";
import { openCheckpoint, parseCheckpoint, parseVerifierKey } from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Chain, CoreApp } from "../_apps.js";
import {
  type CheckpointLogService,
  HOUR,
  ORIGIN,
  signer,
  startCheckpointLogService,
} from "./_service.js";

const encoder = new TextEncoder();
let service: CheckpointLogService;
let t: CoreApp;
let chain: Chain;

beforeAll(async () => {
  service = await startCheckpointLogService();
  ({ t, chain } = service);
});
afterAll(async () => {
  await service?.close();
});

/** One interval of the anchor service's leader: the batched sweep, then the checkpoint-log step. */
function interval(state: UserAnchorState) {
  return service.interval(state);
}

/** Checks every part of a bundle's checkpoint-log path; returns the entry's parsed checkpoint. */
async function checkLogPath(bundle: ProofBundle, owner: string) {
  const path = bundle.checkpointLog;
  expect(path).not.toBeNull();
  if (!path) {
    throw new Error("no checkpointLog");
  }
  // The entry's signature verifies with the log key, and the signed note's text is the entry.
  const opened = openCheckpoint(
    path.userCheckpoint,
    [parseVerifierKey(signer.vkey)],
    `${ORIGIN}/users/${owner}`,
  );
  const entry = parseCheckpoint(path.entry);
  expect(opened.checkpoint).toEqual(entry);
  expect(opened.text).toBe(path.entry);
  expect(path.userCheckpoint.startsWith(`${path.entry}\n`)).toBe(true);
  // The user inclusion proof reaches the entry's root.
  const userRoot = rootFromInclusionProof(
    bundle.leafIndex,
    entry.size,
    fromHex(bundle.leafHash),
    path.userInclusionProof.map(fromHex),
  );
  expect(toHex(userRoot)).toBe(toHex(entry.rootHash));
  // The log inclusion proof reaches rootHash.
  const logRoot = rootFromInclusionProof(
    path.leafIndex,
    path.treeSize,
    hashLeaf(encoder.encode(path.entry)),
    path.inclusionProof.map(fromHex),
  );
  expect(toHex(logRoot)).toBe(path.rootHash);
  // rootHash and size are the checkpoint log account's, read from the chain.
  const account = await chain.client.readCheckpointLog();
  expect(account).toMatchObject({ address: path.anchor.account, size: path.treeSize });
  expect(toHex(account?.root ?? new Uint8Array())).toBe(path.rootHash);
  expect(path.anchor).toMatchObject({
    cluster: "localnet",
    programId: LOCAL_PROGRAM_ID,
    size: path.treeSize,
    nonce: account?.nonce,
  });
  const tx = await new Connection(chain.url, "confirmed").getTransaction(path.anchor.signature, {
    commitment: "confirmed",
    maxSupportedTransactionVersion: 0,
  });
  expect(tx?.slot).toBe(path.anchor.slot);
  return entry;
}

describe("a memory anchored only through the checkpoint log", () => {
  let client: SvcClient;
  let owner: string;
  const state: UserAnchorState = { lastAt: null };

  it("a new user's account is created in the first sweep, and its checkpoint logged", async () => {
    const keypair = Keypair.generate();
    owner = keypair.publicKey.toBase58();
    client = createClient({ baseUrl: t.url });
    await client.signInWithKeypair(keypair);
    const first = await client.remember("first");
    const { report, log } = await interval(state);
    expect(report.outcomes).toMatchObject([{ outcome: "confirmed", treeSize: 1 }]);
    expect(log).toMatchObject({ outcome: "anchored", appended: 1 });
    const bundle = await client.prove(first.id);
    expect(bundle).toMatchObject({ anchored: true, checkpoint: { treeSize: 1 } });
    expect((await checkLogPath(bundle, owner)).size).toBe(1);
  });

  it("a later memory is provable through the checkpoint log before the next per-user pass", async () => {
    await client.remember("second");
    const third = await client.remember("third");
    const { report, log } = await interval(state);
    expect(report.outcomes).toMatchObject([
      { outcome: "skipped", reason: "user_anchor_interval", treeSize: 3 },
    ]);
    expect(log).toMatchObject({ outcome: "anchored", appended: 1 });
    // The owner's own account still holds one leaf.
    expect((await chain.client.readCommitment(owner))?.memoryCount).toBe(1);

    const bundle = await client.prove(third.id);
    expect(bundle).toMatchObject({
      anchored: true,
      checkpoint: null,
      inclusionProof: null,
      anchor: null,
    });
    const entry = await checkLogPath(bundle, owner);
    expect(entry.size).toBe(3);
    expect(bundle.checkpointLog?.leafIndex).toBe(1);
    // Anchored on either path: the memory record and the search answer say so too.
    expect((await client.get(third.id)).anchored).toBe(true);
    const found = await client.recall("third");
    expect(found.items.find((m) => m.id === third.id)?.anchored).toBe(true);

    // The next interval finds the same sealed tree: nothing new is logged.
    const again = await interval(state);
    expect(again.report.waiting).toMatchObject([{ treeSize: 3 }]);
    expect(again.log).toMatchObject({ outcome: "current", size: 2 });
  });

  it("the batched pass an hour later commits the owner's account; the entry is not logged twice", async () => {
    state.lastAt = Date.now() - HOUR;
    const { report, log } = await interval(state);
    expect(report.outcomes).toMatchObject([{ outcome: "confirmed", treeSize: 3 }]);
    expect(log).toMatchObject({ outcome: "current", size: 2 });
    expect((await chain.client.readCommitment(owner))?.memoryCount).toBe(3);
    const items = (await client.list()).items;
    const bundle = await client.prove(items[0]?.id ?? "");
    expect(bundle).toMatchObject({ anchored: true, checkpoint: { treeSize: 3 } });
    expect((await checkLogPath(bundle, owner)).size).toBe(3);
  });

  it("a memory no anchored head covers yet has checkpointLog null", async () => {
    const fourth = await client.remember("fourth");
    const bundle = await client.prove(fourth.id);
    expect(bundle).toMatchObject({ anchored: false, checkpointLog: null });
    expect((await client.get(fourth.id)).anchored).toBe(false);
  });
});
