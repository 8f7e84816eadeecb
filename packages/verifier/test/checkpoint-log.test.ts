/**
 * The checkpoint-log path of verifyBundle and svc-verify (docs/protocol.md §13.5 "The checkpoint
 * log") against a real chain: the local chain (litesvm with the commitment program) in process,
 * the checkpoint log account written with the program's own `initialize_checkpoint_log` and
 * `commit_checkpoint_log`, user checkpoints signed with real Ed25519 keys (the docs/protocol.md
 * §13.3 example key) and bundles cut from in-memory RFC 9162 trees. Known answers: the note text,
 * its signature and the checkpoint log root of the fixed fixture. Each new failure reason is
 * provoked once; an older checkpoint log size is bridged through an HTTP server standing in for
 * the memory API (`/tlog/consistency`, `/info`).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import {
  createCommitCheckpointLogInstruction,
  createInitializeCheckpointLogInstruction,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { type LocalChain, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { signNote } from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type VerifyResult, verifyBundle } from "../src/index.js";
import {
  appendEntry,
  checkpointText,
  LOG_ORIGIN,
  logBundle,
  logKey,
  memory,
  otherEntry,
  owner,
  previousLogKey,
  Tree,
  userTree,
} from "./_checkpoint-log.js";

const run = promisify(execFile);
const programId = new PublicKey(LOCAL_PROGRAM_ID);
const authority = Keypair.generate();
let chain: LocalChain;
let dataDir: string;
let connection: Connection;
let nonce = 0;

/** Commits `log`'s root and size to the authority's checkpoint log account. */
async function commitLog(log: Tree): Promise<string> {
  const tx = new Transaction();
  if (nonce === 0) {
    tx.add(createInitializeCheckpointLogInstruction({ programId, authority: authority.publicKey }));
  }
  tx.add(
    createCommitCheckpointLogInstruction({
      programId,
      authority: authority.publicKey,
      root: log.range.root(),
      size: BigInt(log.size),
      expectedNonce: BigInt(nonce),
    }),
  );
  const signature = await sendAndConfirmTransaction(connection, tx, [authority], {
    commitment: "confirmed",
  });
  nonce += 1;
  return signature;
}

/** A stand-in for the memory API's public routes over `log` (`tamper` flips a proof byte). */
function standInApi(log: Tree, logKeys: readonly string[]) {
  let tamper = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    void (async () => {
      if (url.pathname === "/info") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ logKey: logKeys[0] ?? null, logKeys }));
        return;
      }
      if (url.pathname === "/tlog/consistency") {
        const from = Number(url.searchParams.get("from"));
        const to = Number(url.searchParams.get("to"));
        const proof = await log.consistency(from, to);
        if (tamper) {
          proof[0] = `${proof[0]?.slice(0, 63)}${proof[0]?.endsWith("0") ? "1" : "0"}`;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ from, to, fromRoot: "", toRoot: "", proof }));
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "not_found" } }));
    })();
  });
  return {
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    setTamper: (value: boolean) => {
      tamper = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function expectReason(result: VerifyResult, reason: string | null): void {
  expect({ reason: result.reason, verified: result.verified }, result.message).toEqual({
    reason,
    verified: reason === null,
  });
  expect(result.path).toBe("checkpoint_log");
  if (reason !== null) {
    expect(result.checks.at(-1)).toEqual({
      check: expect.any(String),
      passed: false,
      detail: result.message,
    });
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-verifier-ckpt-"));
  chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  connection = new Connection(chain.url, { commitment: "confirmed", wsEndpoint: chain.wsUrl });
  const airdrop = await connection.requestAirdrop(authority.publicKey, 10 * LAMPORTS_PER_SOL);
  const latest = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature: airdrop, ...latest }, "confirmed");
});

afterAll(async () => {
  await chain?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the checkpoint-log path", () => {
  const user = userTree(3);
  const log = new Tree();
  appendEntry(log, otherEntry(0));
  const entryIndex = appendEntry(log, checkpointText(user));
  appendEntry(log, otherEntry(1));
  const vkey = logKey.vkey;
  let signature: string;
  let bundle: Awaited<ReturnType<typeof logBundle>>;
  const parts = () => ({
    index: 1,
    user,
    signers: [logKey],
    log,
    entryIndex,
    authority: authority.publicKey.toBase58(),
    programId: LOCAL_PROGRAM_ID,
    nonce: 1,
    signature,
  });

  it("known answers: the example key, the signed user checkpoint and the checkpoint log root", async () => {
    expect(vkey).toBe("localhost:8787/tlog+234b4ce3+ARiKee0326nyEXRV27xXzuATVcHxt89iVEg4shzjcPXK");
    expect(owner).toBe("6BamEMvnQR7X1CPsP2rqwsckG73sLTDSNTm91TAg67X8");
    const note = signNote(checkpointText(user), [logKey]);
    expect(note).toBe(
      `${LOG_ORIGIN}/users/${owner}\n3\nLidm4lL7EPIFGPkL29OULrxzWJdkK6QS34p+MDXf8mc=\n\n— ${LOG_ORIGIN} I0tM48umEZRPogx0cofCbUL44Z2R4h7m7OREjq/46UlzOTxGl48vLm/f0+rI9CVYSznHJN2840WbynGKaYPCQJOGlA8=\n`,
    );
    expect(user.rootHex()).toBe("2e2766e252fb10f20518f90bdbd3942ebc735897642ba412df8a7e3035dff267");
    expect(await user.path(1)).toEqual([
      "9558bf55cce3074a4103a79dc4f5aed251d9934dd7af0f4714c4cf5f4ea11caf",
      "754dbd9bc56bf9fd526ef67c62a2c2d5a0d87538bbbc37fea7ccaeccfbb15f57",
    ]);
    expect(entryIndex).toBe(1);
    // docs/verification.md's worked example: the entry's RFC 9162 leaf hash, SHA-256(0x00 ‖ entry).
    expect(
      createHash("sha256")
        .update(Buffer.concat([Buffer.from([0]), Buffer.from(checkpointText(user), "utf8")]))
        .digest("hex"),
    ).toBe("d185f4b4aeb1a9e6315c8f5b65ed3f9a3dde825f3e425988f94f27ff05b3057b");
    expect(log.rootHex()).toBe("3879e4ccea4d1f755dea78778345207301c393cdaea57bfb7f542bcfd2d54fe2");
    expect(await log.path(1)).toEqual([
      "e80d554235a271bde0f75b58279f0691c57bf1eb2850c92c20782f0407a3628e",
      "969ee3ffe3ebb19f1d5411303836ca01c2da82b02778cf172da9741bbe240842",
    ]);
  });

  it("VERIFIED with the pinned log key: note, entry, both inclusions and the account read from the chain", async () => {
    signature = await commitLog(log);
    bundle = await logBundle(parts());
    const result = await verifyBundle(bundle, {
      rpcUrl: chain.url,
      logKeys: [vkey],
      authority: authority.publicKey.toBase58(),
      content: memory(1).content,
    });
    expectReason(result, null);
    expect(result.checks.map((c) => c.check)).toEqual([
      "bundle",
      "anchored",
      "leaf",
      "content",
      "log_key",
      "note",
      "entry",
      "inclusion",
      "log_inclusion",
      "account",
      "chain",
      "authority",
      "log_checkpoint",
    ]);
    expect(result.logKey).toBe(vkey);
    expect(result.onChain).toBeNull();
    expect(result.checkpointLog).toEqual({
      account: bundle.checkpointLog.anchor.account,
      programId: LOCAL_PROGRAM_ID,
      authority: authority.publicKey.toBase58(),
      root: log.rootHex(),
      size: 3,
      nonce: 1,
    });
  });

  it("refuses a note that is not a signed user checkpoint of this owner (note_malformed)", async () => {
    const garbage = { ...bundle.checkpointLog, userCheckpoint: "not a note" };
    expectReason(
      await verifyBundle(
        { ...bundle, checkpointLog: garbage },
        { rpcUrl: chain.url, logKeys: [vkey] },
      ),
      "note_malformed",
    );
    const strangerText = checkpointText(user, Keypair.generate().publicKey.toBase58());
    const stranger = {
      ...bundle.checkpointLog,
      entry: strangerText,
      userCheckpoint: signNote(strangerText, [logKey]),
    };
    expectReason(
      await verifyBundle(
        { ...bundle, checkpointLog: stranger },
        { rpcUrl: chain.url, logKeys: [vkey] },
      ),
      "note_malformed",
    );
  });

  it("refuses a note no pinned key signed, and a bundle with no key to check it (note_signature_invalid)", async () => {
    const opts = { rpcUrl: chain.url };
    expectReason(
      await verifyBundle(bundle, { ...opts, logKeys: [previousLogKey.vkey] }),
      "note_signature_invalid",
    );
    expectReason(await verifyBundle(bundle, opts), "note_signature_invalid");
    const forged = bundle.checkpointLog.userCheckpoint.replace(
      / I0tM4(.)/,
      (_m, c: string) => ` I0tM4${c === "A" ? "B" : "A"}`,
    );
    expectReason(
      await verifyBundle(
        { ...bundle, checkpointLog: { ...bundle.checkpointLog, userCheckpoint: forged } },
        { ...opts, logKeys: [vkey] },
      ),
      "note_signature_invalid",
    );
    await expect(verifyBundle(bundle, { ...opts, logKeys: ["not a key"] })).rejects.toThrow(
      TypeError,
    );
  });

  it("key rotation: a note signed by the previous key verifies when both keys are pinned", async () => {
    const old = await logBundle({ ...parts(), signers: [previousLogKey] });
    expectReason(
      await verifyBundle(old, { rpcUrl: chain.url, logKeys: [vkey] }),
      "note_signature_invalid",
    );
    const result = await verifyBundle(old, {
      rpcUrl: chain.url,
      logKeys: [vkey, previousLogKey.vkey],
    });
    expectReason(result, null);
    expect(result.logKey).toBe(previousLogKey.vkey);
  });

  it("refuses an entry that is not the note's text, and broken audit paths", async () => {
    const opts = { rpcUrl: chain.url, logKeys: [vkey] };
    const cl = bundle.checkpointLog;
    expectReason(
      await verifyBundle({ ...bundle, checkpointLog: { ...cl, entry: otherEntry(0) } }, opts),
      "entry_mismatch",
    );
    const flip = (nodes: readonly string[]) => [
      `${nodes[0]?.slice(0, 63)}${nodes[0]?.endsWith("0") ? "1" : "0"}`,
      ...nodes.slice(1),
    ];
    expectReason(
      await verifyBundle(
        { ...bundle, checkpointLog: { ...cl, userInclusionProof: flip(cl.userInclusionProof) } },
        opts,
      ),
      "proof_invalid",
    );
    expectReason(
      await verifyBundle(
        { ...bundle, checkpointLog: { ...cl, inclusionProof: flip(cl.inclusionProof) } },
        opts,
      ),
      "log_inclusion_invalid",
    );
    expectReason(
      await verifyBundle({ ...bundle, checkpointLog: { ...cl, leafIndex: 0 } }, opts),
      "log_inclusion_invalid",
    );
  });

  it("refuses another authority's account and an account that does not exist", async () => {
    const opts = { rpcUrl: chain.url, logKeys: [vkey] };
    const stranger = Keypair.generate().publicKey.toBase58();
    expectReason(await verifyBundle(bundle, { ...opts, authority: stranger }), "account_mismatch");
    const missing = await logBundle({ ...parts(), authority: stranger });
    expectReason(await verifyBundle(missing, opts), "log_account_not_found");
    const notOurs = {
      ...bundle.checkpointLog,
      anchor: { ...bundle.checkpointLog.anchor, account: stranger },
    };
    expectReason(
      await verifyBundle({ ...bundle, checkpointLog: notOurs }, opts),
      "log_account_not_found",
    );
    expectReason(
      await verifyBundle(bundle, { ...opts, rpcUrl: "http://127.0.0.1:9" }),
      "chain_unavailable",
    );
  });

  it("refuses a checkpoint log the chain never held: larger, or another root at its size (log_checkpoint_mismatch)", async () => {
    const opts = { rpcUrl: chain.url, logKeys: [vkey] };
    const longer = new Tree();
    appendEntry(longer, otherEntry(0));
    appendEntry(longer, checkpointText(user));
    appendEntry(longer, otherEntry(1));
    appendEntry(longer, otherEntry(2));
    expectReason(
      await verifyBundle(await logBundle({ ...parts(), log: longer }), opts),
      "log_checkpoint_mismatch",
    );
    const forked = new Tree();
    appendEntry(forked, otherEntry(3));
    appendEntry(forked, checkpointText(user));
    appendEntry(forked, otherEntry(1));
    expectReason(
      await verifyBundle(await logBundle({ ...parts(), log: forked }), opts),
      "log_checkpoint_mismatch",
    );
  });

  it("an older checkpoint log size: stale_checkpoint alone, VERIFIED bridged by /tlog/consistency, consistency_invalid when tampered", async () => {
    const older = await logBundle(parts());
    appendEntry(log, otherEntry(2));
    appendEntry(log, otherEntry(3));
    await commitLog(log);
    expectReason(
      await verifyBundle(older, { rpcUrl: chain.url, logKeys: [vkey] }),
      "stale_checkpoint",
    );
    const api = standInApi(log, [vkey]);
    const apiUrl = await api.listen();
    try {
      const bridged = await verifyBundle(older, { rpcUrl: chain.url, logKeys: [vkey], apiUrl });
      expectReason(bridged, null);
      expect(bridged.bridged).toEqual({ from: 3, to: 5, proof: await log.consistency(3, 5) });
      // No key pinned: the keys of GET /info are used.
      const viaInfo = await verifyBundle(older, { rpcUrl: chain.url, apiUrl });
      expectReason(viaInfo, null);
      expect(viaInfo.logKey).toBe(vkey);
      api.setTamper(true);
      expectReason(
        await verifyBundle(older, { rpcUrl: chain.url, logKeys: [vkey], apiUrl }),
        "consistency_invalid",
      );
    } finally {
      await api.close();
    }
    expectReason(
      await verifyBundle(older, {
        rpcUrl: chain.url,
        logKeys: [vkey],
        apiUrl: "http://127.0.0.1:9",
      }),
      "consistency_unavailable",
    );
  });

  it("svc-verify: --log-key pins the key (VERIFIED, exit 0); another key is NOT VERIFIED (exit 1); a bad key is a usage error (exit 2)", async () => {
    const fresh = await logBundle({ ...parts(), nonce: 2 });
    const dir = await mkdtemp(join(tmpdir(), "svc-verify-ckpt-"));
    const file = join(dir, "bundle.json");
    await writeFile(file, JSON.stringify(fresh));
    const bin = fileURLToPath(new URL("../bin/svc-verify.js", import.meta.url));
    try {
      const ok = await run(process.execPath, [bin, "--rpc", chain.url, "--log-key", vkey, file]);
      expect(ok.stdout).toMatch(/^VERIFIED\n {2}leaf 1 is in the signed user checkpoint/);
      const out: string[] = [];
      const io = {
        stdout: (t: string) => out.push(t),
        stderr: (t: string) => out.push(t),
        readStdin: async () => "",
        readFile: async () => JSON.stringify(fresh),
      };
      expect(await runCli(["--rpc", chain.url, "--log-key", previousLogKey.vkey, file], io)).toBe(
        1,
      );
      expect(out.join("")).toContain("NOT VERIFIED: note_signature_invalid");
      expect(
        await runCli(
          ["--rpc", chain.url, "--log-key", vkey, "--log-key", previousLogKey.vkey, file],
          io,
        ),
      ).toBe(0);
      expect(
        await runCli(["--rpc", chain.url, "--log-key", "example.com+00000000+AAAA", file], io),
      ).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
