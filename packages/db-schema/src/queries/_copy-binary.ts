/**
 * A reader of PostgreSQL's binary COPY format (PostgreSQL documentation, COPY, "Binary Format"):
 * the 11-byte signature, a 32-bit flags field and a header extension, then tuples (a 16-bit field
 * count, each field a 32-bit length, -1 for NULL, and that many bytes), then the 16-bit trailer
 * -1. All integers are big-endian. Fields are handed out as views of the chunks they arrived in,
 * without copying: the cold recall load reads its segments this way instead of as hex text.
 *
 * Our own code rather than pg-copy-streams-binary: that package targets pg's copy streams and
 * brings six dependencies; this is the part of the format we need, zero-copy.
 * @module
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** Signature, flags, header extension length. */
const HEADER_BYTES = SIGNATURE.length + 4 + 4;

/** Parses a binary COPY stream chunk by chunk; tuples may span chunks. */
export class CopyBinaryReader {
  private pending: Buffer | null = null;
  private headerRead = false;
  private ended = false;

  /**
   * Reads `chunk`, handing each complete tuple to `visit` (fields in column order, views of the
   * chunk: copy what you keep). Bytes of an incomplete tuple wait for the next chunk.
   * @throws TypeError on a wrong signature, flags this reader does not support (OIDs), or bytes
   *   after the trailer.
   */
  push(chunk: Buffer, visit: (fields: (Buffer | null)[]) => void): void {
    const bytes = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let at = 0;
    if (this.ended) {
      throw new TypeError("binary COPY: bytes after the trailer");
    }
    if (!this.headerRead) {
      if (bytes.length < HEADER_BYTES) {
        this.pending = bytes;
        return;
      }
      if (!bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) {
        throw new TypeError("binary COPY: wrong signature");
      }
      if ((bytes.readUInt32BE(SIGNATURE.length) & 0x10000) !== 0) {
        throw new TypeError("binary COPY: OIDs included, not supported");
      }
      const extension = bytes.readUInt32BE(SIGNATURE.length + 4);
      if (bytes.length < HEADER_BYTES + extension) {
        this.pending = bytes;
        return;
      }
      at = HEADER_BYTES + extension;
      this.headerRead = true;
    }
    while (bytes.length - at >= 2) {
      const count = bytes.readInt16BE(at);
      if (count === -1) {
        this.ended = true;
        if (at + 2 !== bytes.length) {
          throw new TypeError("binary COPY: bytes after the trailer");
        }
        return;
      }
      const fields: (Buffer | null)[] = [];
      let next = at + 2;
      for (let f = 0; f < count; f++) {
        if (bytes.length - next < 4) {
          break;
        }
        const length = bytes.readInt32BE(next);
        next += 4;
        if (length === -1) {
          fields.push(null);
          continue;
        }
        if (bytes.length - next < length) {
          break;
        }
        fields.push(bytes.subarray(next, next + length));
        next += length;
      }
      if (fields.length < count) {
        break;
      }
      visit(fields);
      at = next;
    }
    if (at < bytes.length) {
      this.pending = bytes.subarray(at);
    }
  }

  /**
   * Checks that the stream ended with its trailer.
   * @throws TypeError when it was cut short.
   */
  end(): void {
    if (!this.ended || this.pending !== null) {
      throw new TypeError("binary COPY: the stream ended before its trailer");
    }
  }
}
