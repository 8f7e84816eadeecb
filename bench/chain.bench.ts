/**
 * Chain client benchmark: commits per second through `@verifiable-memory/chain-commit` ChainClient against the
 * embedded local chain over HTTP (build + sign + send with preflight + durable ledger write +
 * confirmation by polling), sequentially and with several users in flight, each beside the raw
 * in-process rate of litesvm 0.8.0 `sendTransaction` on pre-signed commit transactions
 * (sigverify off) measured in the same run. The ratio is the cost of the JSON-RPC front, the
 * HTTP round trips (getLatestBlockhash, sendTransaction, getSignatureStatuses), ed25519 signing
 * and verification, preflight simulation and the fsync'ed ledger.
 * Sizes: 400 sequential commits, 8 users × 100 commits in flight, 5 000 raw transactions; about
 * 10–20 s on a 2-core machine.
 * Source: docs/protocol.md §7; programs/commitment/README.md (litesvm 0.8.0 timings).
 * @module
 */
import { createPrivateKey, sign as edSign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair, PublicKey, Transaction, VersionedTransaction } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import {
  createCommitInstruction,
  createInitializeInstruction,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { deployCommitmentProgram } from "@verifiable-memory/commitment-program/deploy";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";
import { printFigures } from "./lib.js";

const SEQUENTIAL = 400;
const USERS = 8;
const PER_USER = 100;
const RAW = 5000;

function root(n: number): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/** litesvm 0.8.0 in-process: pre-signed commit transactions sent back to back, in commits/s. */
function rawLitesvmRate(count: number): number {
  const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false);
  const programId = new PublicKey(LOCAL_PROGRAM_ID);
  const payer = Keypair.generate();
  svm.airdrop(payer.publicKey, 10_000_000_000n);
  deployCommitmentProgram(svm, programId, payer);
  const authority = Keypair.generate();
  svm.airdrop(authority.publicKey, 10_000_000_000n);
  const owner = Keypair.generate().publicKey;
  const blockhash = svm.latestBlockhash();
  const key = createPrivateKey({
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: Buffer.from(authority.secretKey.subarray(0, 32)).toString("base64url"),
      x: authority.publicKey.toBuffer().toString("base64url"),
    },
    format: "jwk",
  });
  const sign = (tx: Transaction) => {
    tx.feePayer = authority.publicKey;
    tx.recentBlockhash = blockhash;
    tx.addSignature(authority.publicKey, edSign(null, tx.serializeMessage(), key));
    return VersionedTransaction.deserialize(tx.serialize({ verifySignatures: false }));
  };
  const init = svm.sendTransaction(
    sign(
      new Transaction().add(
        createInitializeInstruction({ programId, authority: authority.publicKey, owner }),
      ),
    ),
  );
  if (init instanceof FailedTransactionMetadata) {
    throw new Error(`initialize failed: ${init.toString()}`);
  }
  const txs = Array.from({ length: count }, (_, i) =>
    sign(
      new Transaction().add(
        createCommitInstruction({
          programId,
          authority: authority.publicKey,
          owner,
          root: root(i),
          memoryCount: BigInt(i),
          expectedNonce: BigInt(i),
        }),
      ),
    ),
  );
  const t0 = process.hrtime.bigint();
  for (const tx of txs) {
    const result = svm.sendTransaction(tx);
    if (result instanceof FailedTransactionMetadata) {
      throw new Error(`commit failed: ${result.toString()}`);
    }
  }
  return count / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** Runs `count` sequential commits for `owner` (first commit, which initializes, not timed). */
async function commitLoop(client: ChainClient, owner: string, count: number): Promise<void> {
  for (let nonce = 1; nonce <= count; nonce++) {
    await client.commit(owner, root(nonce), nonce, nonce);
  }
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "chain-bench-"));
  const chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  try {
    const authority = Keypair.generate();
    await requestAirdrop(chain.url, authority.publicKey.toBase58(), 1_000_000_000_000);
    const client = new ChainClient({ rpcUrl: chain.url, programId: LOCAL_PROGRAM_ID, authority });
    const owners = Array.from({ length: USERS + 1 }, () => Keypair.generate().publicKey.toBase58());
    for (const owner of owners) {
      await client.commit(owner, root(0), 0, 0);
    }

    const rawBefore = rawLitesvmRate(RAW);

    let t0 = process.hrtime.bigint();
    await commitLoop(client, owners[0] as string, SEQUENTIAL);
    const sequential = SEQUENTIAL / (Number(process.hrtime.bigint() - t0) / 1e9);

    t0 = process.hrtime.bigint();
    await Promise.all(owners.slice(1).map((owner) => commitLoop(client, owner, PER_USER)));
    const concurrent = (USERS * PER_USER) / (Number(process.hrtime.bigint() - t0) / 1e9);

    const raw = Math.max(rawBefore, rawLitesvmRate(RAW));
    printFigures("chain-commit over the local chain (JSON-RPC over HTTP)", [
      {
        name: `ChainClient.commit, sequential (${SEQUENTIAL})`,
        value: sequential,
        baseline: raw,
        unit: "commits/s",
        baselineName: "litesvm 0.8.0 sendTransaction, pre-signed, sigverify off",
      },
      {
        name: `ChainClient.commit, ${USERS} users in flight (${USERS}×${PER_USER})`,
        value: concurrent,
        baseline: raw,
        unit: "commits/s",
        baselineName: "litesvm 0.8.0 sendTransaction, pre-signed, sigverify off",
      },
    ]);
  } finally {
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
