/**
 * One user's vectors of one model as the recall cache keeps them (docs/protocol.md §4.5
 * "Recall"): quantised to int8 (each vector scaled by its largest component to ±127, with the
 * inverse norm of the quantised vector kept as a float32), in a WebAssembly memory that the SIMD
 * scan (dot-wasm.ts) reads in place. Cosine similarity = dot(q, v) · |q|⁻¹ · |v|⁻¹ of the quantised
 * vectors; every stored vector is scored (an exhaustive search, no approximate index). Slots
 * follow arrival order; `slotPosition` / `positionSlot` map slots to the log's positions.
 * Plaintext-equivalent data: it lives in this process's memory only, like the texts.
 * @module
 */
import { type DotsFunction, dotsOver, newMemory, type WasmMemory } from "./dot-wasm.js";

/** Bytes of a WebAssembly page. */
const PAGE = 65_536;
/** The query's place: the first page (dimensions ≤ 8 192 fit). */
const QUERY_OFFSET = 0;
/** Where vectors start. */
const VECTORS_OFFSET = PAGE;
/** Largest dimensions taken (EMBEDDINGS_DIMENSIONS' bound). */
export const MAX_DIMENSIONS = 8192;

/** A float vector quantised to int8 (`values`, padded to a multiple of 16) and its inverse norm. */
export interface QuantisedVector {
  readonly values: Int8Array;
  readonly inverseNorm: number;
}

/**
 * Quantises `vector` to int8: each component · 127 / max |component|, rounded; zero-padded to
 * `padded` components. The inverse norm is that of the quantised vector (0 for a zero vector).
 */
export function quantise(vector: Float32Array, padded: number): QuantisedVector {
  let max = 0;
  for (let i = 0; i < vector.length; i++) {
    const magnitude = Math.abs(vector[i] as number);
    if (magnitude > max) {
      max = magnitude;
    }
  }
  const values = new Int8Array(padded);
  if (!(max > 0) || !Number.isFinite(max)) {
    return { values, inverseNorm: 0 };
  }
  let squares = 0;
  for (let i = 0; i < vector.length; i++) {
    const q = Math.round(((vector[i] as number) * 127) / max);
    values[i] = q;
    squares += q * q;
  }
  return { values, inverseNorm: 1 / Math.sqrt(squares) };
}

/** One user's vectors of one model. */
export class VectorStore {
  /** Components per vector, padded to a multiple of 16. */
  readonly padded: number;
  private memory: WasmMemory;
  private dots: DotsFunction;
  private capacity = 0;
  /** Slots used (tombstoned ones included until a rebuild). */
  count = 0;
  private inverseNorms = new Float32Array(0);
  private slotPositions = new Int32Array(0);
  /** Slot of each log position, −1 when it has no vector. */
  private positionSlots = new Int32Array(0);
  /** Estimated bytes held (the WebAssembly memory and the side arrays). */
  bytes = 0;
  /**
   * Leaves [0, sealedEnd) have vector segments of this model (as far as this store knows): a
   * vector that arrives below it means its segment was dropped (see `insertMemoryVectors`).
   */
  sealedEnd = 0;

  /**
   * @param modelId the model every vector here comes from.
   * @param dimensions the model's dimensions (1–8 192).
   * @throws RangeError for dimensions outside 1–8 192.
   */
  constructor(
    readonly modelId: string,
    readonly dimensions: number,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new RangeError(`dimensions must be in 1..${MAX_DIMENSIONS}, got ${dimensions}`);
    }
    this.padded = Math.ceil(dimensions / 16) * 16;
    this.memory = newMemory(2);
    this.dots = dotsOver(this.memory);
    this.bytes = 2 * PAGE;
  }

  /** Whether the memory at `position` has a vector here. */
  has(position: number): boolean {
    return position < this.positionSlots.length && (this.positionSlots[position] as number) >= 0;
  }

  /**
   * Stores the vector of the memory at `position` (replacing none: a position with a vector keeps
   * it). @returns the bytes the store grew by.
   * @throws RangeError when the vector's length is not the store's dimensions.
   */
  add(position: number, vector: Float32Array): number {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`vector of ${vector.length} dimensions, expected ${this.dimensions}`);
    }
    if (this.has(position)) {
      return 0;
    }
    const before = this.bytes;
    this.reserve(this.count + 1, position + 1);
    const slot = this.count++;
    const { values, inverseNorm } = quantise(vector, this.padded);
    new Int8Array(this.memory.buffer, VECTORS_OFFSET + slot * this.padded, this.padded).set(values);
    this.inverseNorms[slot] = inverseNorm;
    this.slotPositions[slot] = position;
    this.positionSlots[position] = slot;
    return this.bytes - before;
  }

  /**
   * Scores every stored vector against `query` (cosine of the quantised vectors), calling
   * `visit(position, score)` for each in slot order.
   */
  scan(query: Float32Array, visit: (position: number, score: number) => void): void {
    if (this.count === 0) {
      return;
    }
    const q = quantise(query, this.padded);
    new Int8Array(this.memory.buffer, QUERY_OFFSET, this.padded).set(q.values);
    const out = this.scoresOffset();
    this.dots(QUERY_OFFSET, VECTORS_OFFSET, this.count, this.padded, out);
    const dots = new Int32Array(this.memory.buffer, out, this.count);
    const { inverseNorms, slotPositions } = this;
    for (let slot = 0; slot < this.count; slot++) {
      visit(
        slotPositions[slot] as number,
        (dots[slot] as number) * (inverseNorms[slot] as number) * q.inverseNorm,
      );
    }
  }

  /**
   * A store with the vectors of the positions that `newPosition` maps to a position ≥ 0 (a
   * compaction of the log), at those positions.
   */
  remap(newPosition: (position: number) => number): VectorStore {
    const next = new VectorStore(this.modelId, this.dimensions);
    next.sealedEnd = this.sealedEnd;
    const view = new Int8Array(this.memory.buffer);
    for (let slot = 0; slot < this.count; slot++) {
      const position = newPosition(this.slotPositions[slot] as number);
      if (position < 0) {
        continue;
      }
      next.reserve(next.count + 1, position + 1);
      const target = next.count++;
      new Int8Array(next.memory.buffer).set(
        view.subarray(
          VECTORS_OFFSET + slot * this.padded,
          VECTORS_OFFSET + (slot + 1) * this.padded,
        ),
        VECTORS_OFFSET + target * next.padded,
      );
      next.inverseNorms[target] = this.inverseNorms[slot] as number;
      next.slotPositions[target] = position;
      next.positionSlots[position] = target;
    }
    return next;
  }

  /** Where the scan writes its scores: after the vectors' capacity. */
  private scoresOffset(): number {
    return VECTORS_OFFSET + this.capacity * this.padded;
  }

  /** Grows the slots to hold `slots` vectors and the position map to `positions` entries. */
  private reserve(slots: number, positionCount: number): void {
    if (positionCount > this.positionSlots.length) {
      const grown = new Int32Array(Math.max(positionCount, this.positionSlots.length * 2, 64)).fill(
        -1,
      );
      grown.set(this.positionSlots);
      this.bytes += 4 * (grown.length - this.positionSlots.length);
      this.positionSlots = grown;
    }
    if (slots <= this.capacity) {
      return;
    }
    const capacity = Math.max(slots, this.capacity * 2, 64);
    const needed = VECTORS_OFFSET + capacity * (this.padded + 4);
    const pages = Math.ceil(needed / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) {
      this.memory.grow(pages);
      this.bytes += pages * PAGE;
    }
    const norms = new Float32Array(capacity);
    norms.set(this.inverseNorms);
    const slotPositions = new Int32Array(capacity);
    slotPositions.set(this.slotPositions);
    this.bytes += 8 * (capacity - this.capacity);
    this.inverseNorms = norms;
    this.slotPositions = slotPositions;
    this.capacity = capacity;
  }
}
