/**
 * The leaf hashes of a user's cached log, by position, packed into byte chunks of
 * {@link HASH_CHUNK} hashes (128 KiB each); a log's last chunk starts at {@link FIRST_HASH_CHUNK}
 * hashes and doubles. Chunks are counted at their allocated size.
 * @module
 */

/** Bytes of a leaf hash (SHA-256, RFC 9162 §2.1.1). */
export const HASH_BYTES = 32;
/** Hashes per chunk. */
const HASH_CHUNK = 4096;
/** Hashes of a chunk when first allocated. */
const FIRST_HASH_CHUNK = 64;

/** Leaf hashes by position (0, 1, …), 32 bytes each. */
export class LeafHashes {
  private readonly chunks: Uint8Array[] = [];

  /**
   * Copies `count` leaf hashes (32 bytes each, back to back in `source`) to positions
   * `position`… , one `set` per chunk they fall in.
   * @returns the bytes newly allocated for them (0 when they fit in the chunks held).
   */
  put(position: number, source: Uint8Array, count: number): number {
    let grown = 0;
    for (let done = 0; done < count; ) {
      const at = position + done;
      const run = Math.min(count - done, HASH_CHUNK - (at % HASH_CHUNK));
      const before = this.chunks[Math.floor((at + run - 1) / HASH_CHUNK)]?.length ?? 0;
      const chunk = this.room(at + run - 1);
      grown += chunk.length - before;
      chunk.set(
        source.subarray(done * HASH_BYTES, (done + run) * HASH_BYTES),
        (at % HASH_CHUNK) * HASH_BYTES,
      );
      done += run;
    }
    return grown;
  }

  /** The leaf hash at `position` (a copy). */
  at(position: number): Uint8Array {
    const chunk = this.chunks[Math.floor(position / HASH_CHUNK)] as Uint8Array;
    const offset = (position % HASH_CHUNK) * HASH_BYTES;
    return chunk.slice(offset, offset + HASH_BYTES);
  }

  /** The leaf hash at `position`, a view into its chunk (valid until the chunk grows). */
  view(position: number): Uint8Array {
    const chunk = this.chunks[Math.floor(position / HASH_CHUNK)] as Uint8Array;
    const offset = (position % HASH_CHUNK) * HASH_BYTES;
    return chunk.subarray(offset, offset + HASH_BYTES);
  }

  /** The chunk of `position`, grown so that it holds that position. */
  private room(position: number): Uint8Array {
    const index = Math.floor(position / HASH_CHUNK);
    const chunk = this.chunks[index];
    if (chunk && chunk.length >= ((position % HASH_CHUNK) + 1) * HASH_BYTES) {
      return chunk;
    }
    const needed = ((position % HASH_CHUNK) + 1) * HASH_BYTES;
    let length = chunk
      ? Math.min(2 * chunk.length, HASH_CHUNK * HASH_BYTES)
      : FIRST_HASH_CHUNK * HASH_BYTES;
    while (length < needed) {
      length = Math.min(2 * length, HASH_CHUNK * HASH_BYTES);
    }
    const grown = new Uint8Array(length);
    if (chunk) {
      grown.set(chunk);
    }
    this.chunks[index] = grown;
    return grown;
  }
}
