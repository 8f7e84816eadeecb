/**
 * The local chain's slot clock: wall-clock slots (400 ms each, counted from the genesis time), a
 * fresh blockhash per slot valid for 150 slots, the Clock sysvar kept in step (slot, epoch, Unix
 * time), and the durable clock warp of the local chain (its Unix time may run ahead of the wall
 * clock; slots keep following the wall clock).
 * Source: docs/protocol.md §7 (embedded default chain); agave `DEFAULT_MS_PER_SLOT` = 400,
 * `MAX_PROCESSING_AGE` = 150, `EpochSchedule`.
 * @module
 */

import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { Clock, type LiteSVM } from "litesvm";
import { saveClockOffset } from "./clock-offset.js";

/** Milliseconds per slot (agave DEFAULT_MS_PER_SLOT). */
export const SLOT_MS = 400;
/** Slots a blockhash stays valid (agave MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE = 150;
/** Largest single clock warp, seconds (10 × 365 days). */
export const MAX_WARP_SECONDS = 315_360_000;

/** The epoch schedule (getEpochSchedule). */
export interface EpochScheduleInfo {
  readonly slotsPerEpoch: number;
  readonly leaderScheduleSlotOffset: number;
  readonly warmup: boolean;
  readonly firstNormalEpoch: number;
  readonly firstNormalSlot: number;
}

/** Epoch and index of `slot` under an epoch schedule with optional warmup (agave EpochSchedule). */
export function epochOf(
  slot: number,
  schedule: EpochScheduleInfo,
): { epoch: number; slotIndex: number; slotsInEpoch: number } {
  const MINIMUM_SLOTS_PER_EPOCH = 32;
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    const epoch = Math.ceil(Math.log2(slot + MINIMUM_SLOTS_PER_EPOCH + 1)) - 5 - 1;
    const slotsInEpoch = 2 ** (epoch + 5);
    return { epoch, slotIndex: slot - (slotsInEpoch - MINIMUM_SLOTS_PER_EPOCH), slotsInEpoch };
  }
  const normal = slot - schedule.firstNormalSlot;
  return {
    epoch: schedule.firstNormalEpoch + Math.floor(normal / schedule.slotsPerEpoch),
    slotIndex: normal % schedule.slotsPerEpoch,
    slotsInEpoch: schedule.slotsPerEpoch,
  };
}

/**
 * Checks a warp length before anything changes.
 * @throws RangeError unless 1 ≤ seconds ≤ {@link MAX_WARP_SECONDS} (an integer).
 */
export function assertWarpSeconds(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_WARP_SECONDS) {
    throw new RangeError(`seconds must be an integer in 1..${MAX_WARP_SECONDS}, got ${seconds}`);
  }
}

/** Options of {@link SlotClock}. */
export interface SlotClockOptions {
  /** The chain's virtual machine, whose Clock sysvar and slot this clock sets. */
  readonly svm: LiteSVM;
  /** When slot 0 began, Unix milliseconds (the genesis time). */
  readonly genesisMs: number;
  /** Wall clock in Unix milliseconds. */
  readonly now: () => number;
  /** Where the warp offset is persisted (`<dataDir>/chain`). */
  readonly chainDir: string;
  /** Seconds the chain's clock already runs ahead of the wall clock (persisted warps). */
  readonly offsetSeconds: number;
}

/** Slots, blockhashes and the Clock sysvar of one local chain. */
export class SlotClock {
  private current = 0;
  private latest = "";
  /** Issued blockhash → last slot at which it is accepted, oldest first. */
  private readonly blockhashes = new Map<string, number>();
  private readonly listeners = new Set<(slot: number) => void>();
  private readonly svm: LiteSVM;
  private readonly genesisMs: number;
  private readonly now: () => number;
  private readonly chainDir: string;
  private offsetSeconds: number;
  /** The epoch schedule sysvar (getEpochSchedule shape). */
  readonly epochSchedule: EpochScheduleInfo;

  constructor(options: SlotClockOptions) {
    this.svm = options.svm;
    this.genesisMs = options.genesisMs;
    this.now = options.now;
    this.chainDir = options.chainDir;
    this.offsetSeconds = options.offsetSeconds;
    const s = this.svm.getEpochSchedule();
    this.epochSchedule = {
      slotsPerEpoch: Number(s.slotsPerEpoch),
      leaderScheduleSlotOffset: Number(s.leaderScheduleSlotOffset),
      warmup: s.warmup,
      firstNormalEpoch: Number(s.firstNormalEpoch),
      firstNormalSlot: Number(s.firstNormalSlot),
    };
  }

  /** The current slot, as last advanced (see {@link tick}). */
  get slot(): number {
    return this.current;
  }

  /** The latest blockhash issued (without advancing the clock). */
  get blockhash(): string {
    return this.latest;
  }

  /** Seconds the chain's clock runs ahead of the wall clock (the sum of every warp). */
  get clockOffset(): number {
    return this.offsetSeconds;
  }

  /** The chain's Unix time in seconds: the wall clock plus every warp so far. */
  unixSeconds(): number {
    return Math.floor(this.now() / 1000) + this.offsetSeconds;
  }

  /**
   * Moves the chain's Unix time forward by `seconds` (checked by {@link assertWarpSeconds}),
   * durably (the offset is written before it applies).
   * @returns the chain's new Unix time, seconds.
   */
  warp(seconds: number): number {
    assertWarpSeconds(seconds);
    const offset = this.offsetSeconds + seconds;
    saveClockOffset(this.chainDir, offset);
    this.offsetSeconds = offset;
    this.setClockSysvar();
    return this.unixSeconds();
  }

  /** The slot the wall clock is in. */
  wallClockSlot(): number {
    return Math.max(0, Math.floor((this.now() - this.genesisMs) / SLOT_MS));
  }

  /** Jumps to `slot`: the VM's slot and Clock sysvar, a new blockhash, the slot listeners. */
  advanceTo(slot: number): void {
    this.current = slot;
    this.svm.warpToSlot(BigInt(slot));
    this.setClockSysvar();
    this.rotateBlockhash();
    for (const listener of this.listeners) {
      listener(slot);
    }
  }

  /** Issues a new latest blockhash, valid through slot + MAX_PROCESSING_AGE. */
  rotateBlockhash(): void {
    this.latest = bs58.encode(randomBytes(32));
    this.blockhashes.set(this.latest, this.current + MAX_PROCESSING_AGE);
    for (const [hash, lastValid] of this.blockhashes) {
      if (lastValid >= this.current) {
        break;
      }
      this.blockhashes.delete(hash);
    }
  }

  /**
   * Brings the slot (and clock sysvar, and latest blockhash) up to the wall clock.
   * @returns the current slot.
   */
  tick(): number {
    const target = this.wallClockSlot();
    if (target > this.current) {
      this.advanceTo(target);
    }
    return this.current;
  }

  /** The latest blockhash and the last block height at which it is accepted. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    this.tick();
    return {
      blockhash: this.latest,
      lastValidBlockHeight: this.blockhashes.get(this.latest) ?? this.current,
    };
  }

  /** Whether `blockhash` was issued by this chain and has not expired. */
  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && lastValid >= this.tick();
  }

  /** Calls `listener` with each new slot. Returns the unsubscribe. */
  onSlot(listener: (slot: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops every slot listener (the chain is closing). */
  clearListeners(): void {
    this.listeners.clear();
  }

  private setClockSysvar(): void {
    const { epoch } = epochOf(this.current, this.epochSchedule);
    const clock = this.svm.getClock();
    this.svm.setClock(
      new Clock(
        BigInt(this.current),
        clock.epochStartTimestamp,
        BigInt(epoch),
        BigInt(epoch + 1),
        BigInt(this.unixSeconds()),
      ),
    );
  }
}
