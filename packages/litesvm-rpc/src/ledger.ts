/**
 * Durable state of the local chain in `<dataDir>/chain/`:
 * - `genesis.json`: written once (atomically): creation time (slot 0), genesis hash, program id.
 * - `ledger.jsonl`: one JSON line per executed transaction (RPC-submitted or airdrop), appended
 *   in order: the transaction bytes, its status, fee, logs and balances (the transaction index
 *   behind `getSignatureStatuses` / `getTransaction`), and the post-state of every account the
 *   transaction could write (a snapshot, not a replay input).
 *
 * On start the latest snapshot of each account is loaded into a fresh litesvm with `setAccount`,
 * so restarts never depend on re-executing transactions deterministically. Appends are
 * group-committed: every line written since the last flush goes out in one `write` + `fdatasync`,
 * and a transaction is reported only once its line is durable. A torn last line (crash during a
 * write) is cut off at start; a malformed line elsewhere stops the start.
 * Source: this project's design (packages/litesvm-rpc/README.md "Persistence").
 * @module
 */

import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { type FileHandle, mkdir, open, truncate } from "node:fs/promises";
import { dirname, join } from "node:path";
import bs58 from "bs58";
import type { TransactionErrorJson } from "./tx-error.js";

/** State of one account after a transaction (lamports 0 and no data: closed). */
export interface StoredAccount {
  readonly address: string;
  readonly lamports: number;
  readonly owner: string;
  readonly executable: boolean;
  readonly rentEpoch: number;
  /** Account data, base64. */
  readonly data: string;
}

/** One executed transaction as stored in `ledger.jsonl`. */
export interface LedgerEntry {
  /** Record format version. */
  readonly v: 1;
  /** First signature, base58. */
  readonly signature: string;
  readonly slot: number;
  /** Unix seconds when it executed. */
  readonly blockTime: number;
  /** Cluster JSON form of the error, null on success. */
  readonly err: TransactionErrorJson | null;
  /** Fee charged, lamports. */
  readonly fee: number;
  readonly computeUnits: number;
  readonly logs: readonly string[];
  /** The wire transaction, base64. */
  readonly transaction: string;
  /** Balances of the static account keys before and after, lamports. */
  readonly preBalances: readonly number[];
  readonly postBalances: readonly number[];
  /** Post-state of the accounts the transaction could write. */
  readonly accounts: readonly StoredAccount[];
}

/** Identity of a local chain, fixed at its first start. */
export interface Genesis {
  readonly v: 1;
  /** Unix milliseconds of slot 0. */
  readonly createdAtMs: number;
  /** Random 32 bytes, base58 (served by getGenesisHash). */
  readonly genesisHash: string;
  /** Program id the chain was created with. */
  readonly programId: string;
}

/** A ledger file that cannot be read back. */
export class LedgerCorruptError extends Error {
  override readonly name = "LedgerCorruptError";
}

/** A ledger write failed; the chain refuses further transactions. */
export class LedgerWriteError extends Error {
  override readonly name = "LedgerWriteError";
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `<chainDir>/genesis.json`, or creates it (tmp + fsync + rename) for a new chain.
 * @throws LedgerCorruptError when the file exists but is not a genesis record.
 */
export function loadOrCreateGenesis(chainDir: string, programId: string, nowMs: number): Genesis {
  const path = join(chainDir, "genesis.json");
  let text: string | null = null;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw error;
    }
  }
  if (text !== null) {
    const parsed = JSON.parse(text) as Partial<Genesis>;
    if (parsed.v !== 1 || typeof parsed.createdAtMs !== "number" || !parsed.genesisHash) {
      throw new LedgerCorruptError(`${path} is not a local-chain genesis record`);
    }
    return parsed as Genesis;
  }
  const genesis: Genesis = {
    v: 1,
    createdAtMs: nowMs,
    genesisHash: bs58.encode(randomBytes(32)),
    programId,
  };
  writeFileDurably(path, `${JSON.stringify(genesis)}\n`);
  return genesis;
}

/**
 * Replaces `path` with `text` atomically and durably: write `<path>.tmp`, fsync, rename over
 * `path`, fsync the directory. A crash leaves either the old or the new content.
 */
export function writeFileDurably(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

interface Pending {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** Append-only, group-committed transaction ledger (`ledger.jsonl`). */
export class Ledger {
  private pending: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private failure: LedgerWriteError | null = null;
  private closed = false;

  private constructor(private readonly file: FileHandle) {}

  /**
   * Opens (creating if needed) `<chainDir>/ledger.jsonl` and reads back its entries in order.
   * A last line without its newline (a write torn by a crash) is cut off.
   * @throws LedgerCorruptError on a malformed complete line.
   */
  static async open(chainDir: string): Promise<{ ledger: Ledger; entries: LedgerEntry[] }> {
    await mkdir(chainDir, { recursive: true });
    const path = join(chainDir, "ledger.jsonl");
    let bytes = Buffer.alloc(0);
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw error;
      }
    }
    const complete = bytes.lastIndexOf(0x0a) + 1;
    if (complete < bytes.length) {
      await truncate(path, complete);
    }
    const entries: LedgerEntry[] = [];
    const lines = bytes.subarray(0, complete).toString("utf8").split("\n");
    lines.pop();
    lines.forEach((line, i) => {
      let entry: LedgerEntry;
      try {
        entry = JSON.parse(line) as LedgerEntry;
      } catch {
        throw new LedgerCorruptError(`${path} line ${i + 1} is not valid JSON`);
      }
      if (entry.v !== 1 || typeof entry.signature !== "string") {
        throw new LedgerCorruptError(`${path} line ${i + 1} is not a ledger entry`);
      }
      entries.push(entry);
    });
    const file = await open(path, "a");
    fsyncDir(chainDir);
    return { ledger: new Ledger(file), entries };
  }

  /**
   * Appends `entry`; resolves once it is on disk (written and fdatasync'ed together with every
   * other entry appended meanwhile).
   * @throws LedgerWriteError if this or an earlier write failed, or the ledger is closed.
   */
  append(entry: LedgerEntry): Promise<void> {
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    if (this.closed) {
      return Promise.reject(new LedgerWriteError("the ledger is closed"));
    }
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      if (!this.flushing) {
        this.flushing = this.flushLoop();
      }
    });
  }

  /** True once a write has failed (the chain then stops accepting transactions). */
  get failed(): boolean {
    return this.failure !== null;
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.file.write(batch.map((p) => p.line).join(""));
        await this.file.datasync();
        for (const p of batch) {
          p.resolve();
        }
      } catch (error) {
        this.failure = new LedgerWriteError(`ledger write failed: ${(error as Error).message}`);
        for (const p of [...batch, ...this.pending]) {
          p.reject(this.failure);
        }
        this.pending = [];
      }
    }
    this.flushing = null;
  }

  /** Waits for pending appends to reach the disk, then closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    while (this.flushing) {
      await this.flushing;
    }
    await this.file.close();
  }
}
