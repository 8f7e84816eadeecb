import { Keypair } from "@solana/web3.js";
import type { UserAnchorState } from "@verifiable-memory/anchor-service";
import { createClient, type SvcClient } from "@verifiable-memory/client";
import { toHex } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Chain, CoreApp } from "../_apps.js";
import { type CheckpointLogService, startCheckpointLogService } from "./_service.js";

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

/** One interval; its checkpoint-log step's report. */
async function interval(state: UserAnchorState) {
  return (await service.interval(state)).log;
}

/** Runs `sql` on the test database. */
function exec(sql: string) {
  return t.db.execute(sql);
}

/** Runs `damage`, then `check`, and always `repair`. */
async function withDamage<T>(damage: string, repair: string, check: () => Promise<T>) {
  await exec(damage);
  try {
    return await check();
  } finally {
    await exec(repair);
  }
}

/** The stored entry text at checkpoint log index `index`. */
async function entryAt(index: number): Promise<string> {
  const rows = await exec(
    `select convert_from(entry, 'UTF8') as text from checkpoint_log_entries where leaf_index = ${index}`,
  );
  return String((rows as unknown as { text: string }[])[0]?.text);
}

/** A SQL literal of `text` as UTF-8 bytes. */
const bytes = (text: string) => `decode('${Buffer.from(text).toString("hex")}', 'hex')`;

describe("GET /memories/:id/verify through the checkpoint log: failures", () => {
  let client: SvcClient;
  let id: string;
  let entryIndex: number;
  const state: UserAnchorState = { lastAt: null };

  it("a memory covered by neither the owner's account nor the checkpoint log yet is not_anchored", async () => {
    const keypair = Keypair.generate();
    client = createClient({ baseUrl: t.url });
    await client.signInWithKeypair(keypair);
    await client.remember("first");
    expect(await interval(state)).toMatchObject({ outcome: "anchored" });
    id = (await client.remember("anchored through the checkpoint log")).id;
    const uncovered = await client.verifyOnServer(id);
    expect(uncovered).toMatchObject({
      verified: false,
      reason: "not_anchored",
      path: "account",
      checkpointLog: null,
      checkedAgainst: { memoryCount: 1 },
    });
    expect(await interval(state)).toMatchObject({ outcome: "anchored", appended: 1 });
    const bundle = await client.prove(id);
    expect(bundle).toMatchObject({ anchored: true, checkpoint: null });
    entryIndex = bundle.checkpointLog?.leafIndex ?? -1;
    expect(bundle.checkpointLog?.treeSize).toBe(entryIndex + 1);
    expect(await client.verifyOnServer(id)).toMatchObject({
      verified: true,
      reason: null,
      path: "checkpoint_log",
    });
  });

  it("a head anchored to an account the chain does not hold: not_anchored, checkpointLog null", async () => {
    const size = entryIndex + 1;
    const [row] = (await exec(
      `select anchor_account as account from checkpoint_log_heads where tree_size = ${size}`,
    )) as unknown as { account: string }[];
    const elsewhere = Keypair.generate().publicKey.toBase58();
    const answer = await withDamage(
      `update checkpoint_log_heads set anchor_account = '${elsewhere}' where tree_size = ${size}`,
      `update checkpoint_log_heads set anchor_account = '${row?.account}' where tree_size = ${size}`,
      () => client.verifyOnServer(id),
    );
    expect(answer).toEqual({
      verified: false,
      reason: "not_anchored",
      path: "checkpoint_log",
      checkedAgainst: null,
      checkpointLog: null,
    });
  });

  it("an entry that is not a checkpoint, or whose size the memory's audit path cannot have: proof_invalid", async () => {
    const entry = await entryAt(entryIndex);
    const restore = `update checkpoint_log_entries set entry = ${bytes(entry)} where leaf_index = ${entryIndex}`;
    const notACheckpoint = await withDamage(
      `update checkpoint_log_entries set entry = ${bytes("not a checkpoint\n")} where leaf_index = ${entryIndex}`,
      restore,
      () => client.verifyOnServer(id),
    );
    const account = await chain.client.readCheckpointLog();
    expect(notACheckpoint).toMatchObject({
      verified: false,
      reason: "proof_invalid",
      path: "checkpoint_log",
      checkpointLog: { size: account?.size, rootHash: toHex(account?.root ?? new Uint8Array()) },
    });
    // Size 1 cannot hold the memory's leaf index 1: the audit path is malformed for it.
    expect(entry).toContain("\n2\n");
    const tooSmall = await withDamage(
      `update checkpoint_log_entries set entry = ${bytes(entry.replace("\n2\n", "\n1\n"))} where leaf_index = ${entryIndex}`,
      restore,
      () => client.verifyOnServer(id),
    );
    expect(tooSmall).toMatchObject({ verified: false, reason: "proof_invalid" });
    expect(await client.verifyOnServer(id)).toMatchObject({ verified: true });
  });

  it("an entry naming another root: root_mismatch (the memory's path misses it)", async () => {
    const entry = await entryAt(entryIndex);
    const lines = entry.split("\n");
    lines[2] = Buffer.alloc(32, 7).toString("base64");
    const answer = await withDamage(
      `update checkpoint_log_entries set entry = ${bytes(lines.join("\n"))} where leaf_index = ${entryIndex}`,
      `update checkpoint_log_entries set entry = ${bytes(entry)} where leaf_index = ${entryIndex}`,
      () => client.verifyOnServer(id),
    );
    expect(answer).toMatchObject({
      verified: false,
      reason: "root_mismatch",
      path: "checkpoint_log",
    });
  });

  it("a damaged checkpoint log node: the entry's path misses the on-chain root, root_mismatch; the stored head's root is not what is checked", async () => {
    expect(entryIndex).toBe(1);
    const [node] = (await exec(
      "select encode(hash, 'hex') as hash from checkpoint_log_nodes where level = 0 and idx = 0",
    )) as unknown as { hash: string }[];
    const answer = await withDamage(
      `update checkpoint_log_nodes set hash = decode('${"ab".repeat(32)}', 'hex') where level = 0 and idx = 0`,
      `update checkpoint_log_nodes set hash = decode('${node?.hash}', 'hex') where level = 0 and idx = 0`,
      () => client.verifyOnServer(id),
    );
    const account = await chain.client.readCheckpointLog();
    expect(answer).toMatchObject({
      verified: false,
      reason: "root_mismatch",
      path: "checkpoint_log",
      checkpointLog: { size: 2, rootHash: toHex(account?.root ?? new Uint8Array()) },
    });
    const [head] = (await exec(
      "select encode(root, 'hex') as root from checkpoint_log_heads where tree_size = 2",
    )) as unknown as { root: string }[];
    expect(head?.root).toBe(toHex(account?.root ?? new Uint8Array()));
    const wrongHead = await withDamage(
      `update checkpoint_log_heads set root = decode('${"cd".repeat(32)}', 'hex') where tree_size = 2`,
      `update checkpoint_log_heads set root = decode('${head?.root}', 'hex') where tree_size = 2`,
      async () => ({ bundle: await client.prove(id), answer: await client.verifyOnServer(id) }),
    );
    expect(wrongHead.bundle.checkpointLog?.rootHash).toBe("cd".repeat(32));
    expect(wrongHead.answer).toMatchObject({
      verified: true,
      reason: null,
      checkpointLog: { rootHash: head?.root },
    });
  });

  it("the account larger than the bundle's head: the entry's path is rebuilt (verified), root_mismatch when the stored log does not reach the account's size or a node is damaged", async () => {
    await client.remember("later");
    expect(await interval(state)).toMatchObject({ outcome: "anchored", appended: 1 });
    const account = await chain.client.readCheckpointLog();
    expect(account?.size).toBe(3);
    // The head at 3 is confirmed on chain but not recorded: the bundle stops at the head of 2.
    const [head] = (await exec(
      "select anchor_signature as sig, anchor_slot as slot, anchor_nonce as nonce, anchor_account as account, anchored_at as at from checkpoint_log_heads where tree_size = 3",
    )) as unknown as { sig: string; slot: string; nonce: string; account: string; at: Date }[];
    await exec(
      "update checkpoint_log_heads set anchor_signature = null, anchor_slot = null, anchor_nonce = null, anchor_account = null, anchored_at = null where tree_size = 3",
    );
    try {
      const bundle = await client.prove(id);
      expect(bundle.checkpointLog).toMatchObject({ leafIndex: 1, treeSize: 2 });
      const rebuilt = await client.verifyOnServer(id);
      expect(rebuilt).toEqual({
        verified: true,
        reason: null,
        path: "checkpoint_log",
        checkedAgainst: null,
        checkpointLog: {
          cluster: "localnet",
          programId: chain.client.programId,
          account: chain.client.checkpointLogAddress,
          size: 3,
          nonce: account?.nonce,
          rootHash: toHex(account?.root ?? new Uint8Array()),
        },
      });
      const [leaf] = (await exec(
        "select encode(hash, 'hex') as hash from checkpoint_log_nodes where level = 0 and idx = 2",
      )) as unknown as { hash: string }[];
      const restore = `insert into checkpoint_log_nodes (level, idx, hash) values (0, 2, decode('${leaf?.hash}', 'hex')) on conflict (level, idx) do update set hash = excluded.hash`;
      const missing = await withDamage(
        "delete from checkpoint_log_nodes where level = 0 and idx = 2",
        restore,
        () => client.verifyOnServer(id),
      );
      expect(missing).toMatchObject({
        verified: false,
        reason: "root_mismatch",
        checkpointLog: { size: 3 },
      });
      const damaged = await withDamage(
        `update checkpoint_log_nodes set hash = decode('${"ef".repeat(32)}', 'hex') where level = 0 and idx = 2`,
        restore,
        () => client.verifyOnServer(id),
      );
      expect(damaged).toMatchObject({ verified: false, reason: "root_mismatch" });
      expect(await client.verifyOnServer(id)).toMatchObject({ verified: true });
    } finally {
      await exec(
        `update checkpoint_log_heads set anchor_signature = '${head?.sig}', anchor_slot = ${head?.slot}, anchor_nonce = ${head?.nonce}, anchor_account = '${head?.account}', anchored_at = '${new Date(head?.at ?? 0).toISOString()}' where tree_size = 3`,
      );
    }
    expect((await client.prove(id)).checkpointLog?.treeSize).toBe(3);
    expect(await client.verifyOnServer(id)).toMatchObject({
      verified: true,
      checkpointLog: { size: 3 },
    });
  });
});
