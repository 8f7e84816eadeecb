/**
 * The exhaustive scan of quantised vectors: a WebAssembly module (128-bit SIMD, part of
 * WebAssembly 2.0 and of every Node.js this service runs on) that computes the int8 dot product of
 * one query with every stored vector, 16 lanes at a time (i16x8.extmul of the low and high halves,
 * i32x4.extadd_pairwise, i32x4.add). Assembled here from its instructions (no build step, no
 * binary file): the WebAssembly Core Specification 2.0, chapter 5 (binary format), opcodes of
 * section 5.4.8 (vector instructions).
 *
 * `dots(query, base, count, dims, out)` (byte offsets into the imported memory): for v in
 * [0, count): out[v] (i32, little-endian) = Σ_j query[j] · vector_v[j], where vector_v starts at
 * base + v · dims; `dims` is a positive multiple of 16 and `count` positive.
 * @module
 */

/** Unsigned LEB128 (WebAssembly Core Specification 2.0, section 5.2.2). */
function uleb(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) {
      byte |= 0x80;
    }
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** A section: id, size, contents (WebAssembly Core Specification 2.0, section 5.5.2). */
function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

/** A name: length-prefixed UTF-8 (ASCII here). */
function name(text: string): number[] {
  return [...uleb(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
// Locals: parameters 0–4, then j (i32), acc, a, b (v128).
const [QUERY, BASE, COUNT, DIMS, OUT, J, ACC, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const i32Const = (value: number) => [0x41, value]; // small non-negative values only
const I32_ADD = 0x6a;
const v128Load = [SIMD, 0x00, 0x00, 0x00];
const EXTMUL_LOW_S = [SIMD, ...uleb(0x9c)];
const EXTMUL_HIGH_S = [SIMD, ...uleb(0x9d)];
const EXTADD_PAIRWISE_S = [SIMD, ...uleb(0x7e)];
const I32X4_ADD = [SIMD, ...uleb(0xae)];
const lane = (n: number) => [SIMD, ...uleb(0x1b), n];

const body = [
  // locals: 1 × i32, 3 × v128
  2,
  1,
  I32,
  3,
  V128,
  0x02, // block $done
  0x40,
  ...get(COUNT),
  0x45, // i32.eqz
  0x0d, // br_if $done
  0,
  0x03, // loop $vec
  0x40,
  SIMD,
  0x0c, // v128.const 0
  ...new Array(16).fill(0),
  ...set(ACC),
  ...i32Const(0),
  ...set(J),
  0x03, // loop $dim
  0x40,
  ...get(QUERY),
  ...get(J),
  I32_ADD,
  ...v128Load,
  ...set(A),
  ...get(BASE),
  ...get(J),
  I32_ADD,
  ...v128Load,
  ...set(B),
  ...get(ACC),
  ...get(A),
  ...get(B),
  ...EXTMUL_LOW_S,
  ...EXTADD_PAIRWISE_S,
  ...I32X4_ADD,
  ...get(A),
  ...get(B),
  ...EXTMUL_HIGH_S,
  ...EXTADD_PAIRWISE_S,
  ...I32X4_ADD,
  ...set(ACC),
  ...get(J),
  ...i32Const(16),
  I32_ADD,
  ...tee(J),
  ...get(DIMS),
  0x49, // i32.lt_u
  0x0d, // br_if $dim
  0,
  0x0b, // end $dim
  ...get(OUT),
  ...get(ACC),
  ...lane(0),
  ...get(ACC),
  ...lane(1),
  I32_ADD,
  ...get(ACC),
  ...lane(2),
  I32_ADD,
  ...get(ACC),
  ...lane(3),
  I32_ADD,
  0x36, // i32.store align=4
  2,
  0,
  ...get(OUT),
  ...i32Const(4),
  I32_ADD,
  ...set(OUT),
  ...get(BASE),
  ...get(DIMS),
  I32_ADD,
  ...set(BASE),
  ...get(COUNT),
  ...i32Const(1),
  0x6b, // i32.sub
  ...tee(COUNT),
  0x0d, // br_if $vec
  0,
  0x0b, // end $vec
  0x0b, // end $done
  0x0b, // end of function
];

const bytes = Uint8Array.from([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  // type section: one (i32 × 5) → ()
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
  // import section: env.memory, min 1 page
  ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]),
  // function section: one function of type 0
  ...section(3, [1, 0]),
  // export section: "dots" = function 0
  ...section(7, [1, ...name("dots"), 0x00, 0]),
  // code section
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

/** A WebAssembly memory (ECMAScript's WebAssembly JavaScript interface; the node types omit it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** Grows by `pages` pages of 64 KiB; the old `buffer` is detached. */
  grow(pages: number): number;
}

/** The parts of the global WebAssembly object used here. */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | undefined;

/** A new WebAssembly memory of `pages` pages of 64 KiB. */
export function newMemory(pages: number): WasmMemory {
  return new wasm.Memory({ initial: pages });
}

/** The `dots` function of an instance over `memory`. */
export type DotsFunction = (
  query: number,
  base: number,
  count: number,
  dims: number,
  out: number,
) => void;

/** An instance of the scan over `memory` (one per vector store); the module compiled once. */
export function dotsOver(memory: WasmMemory): DotsFunction {
  compiled ??= new wasm.Module(bytes);
  const instance = new wasm.Instance(compiled, { env: { memory } });
  return instance.exports.dots as DotsFunction;
}
