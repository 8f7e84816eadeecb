/**
 * A reader of PostgreSQL's binary COPY format (PostgreSQL documentation, COPY, "Binary Format"):
 * the 11-byte signature, a 32-bit flags field and a header extension, then tuples (a 16-bit field
 * count, each field a 32-bit length, -1 for NULL, and that many bytes), then the 16-bit trailer
 * -1. All integers are big-endian. Fields are handed out as views of the chunks they arrived in,
 * without copying: the cold recall load reads its segments this way instead of as hex text.
 *
 * Our own code rather than pg-copy-streams-binary: that package targets pg's copy streams and
 * brings six dependencies; this is the part of the format we need, zero-copy.
 * {@link streamCopyBinary} is what the query modules call: one `COPY … TO STDOUT (FORMAT
 * binary)` statement, its rows decoded and visited as they arrive.
 * @module
 */
import type { Executor } from "../client.js";
import { clientOf } from "./_prepared.js";

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

/** A user id as this service makes them (randomUUID): safe to write into a COPY statement. */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `userId` checked to be a lower-case UUID, for writing into a COPY statement as a literal (COPY
 * takes no bind parameters).
 * @throws RangeError otherwise.
 */
export function copyUserId(userId: string): string {
  if (!USER_ID.test(userId)) {
    throw new RangeError(`user id must be a lower-case UUID, got ${JSON.stringify(userId)}`);
  }
  return userId;
}

/**
 * A text as an SQL string literal for a COPY statement (standard_conforming_strings: only `'` is
 * doubled).
 * @throws RangeError when the text holds U+0000.
 */
export function copyLiteral(text: string): string {
  if (text.includes("\u0000")) {
    throw new RangeError("a COPY literal cannot hold U+0000");
  }
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Field `index` of a binary COPY row, which must not be NULL.
 * @throws TypeError naming `what` when it is NULL or missing.
 */
export function copyField(fields: readonly (Buffer | null)[], index: number, what: string): Buffer {
  const field = fields[index];
  if (field === null || field === undefined) {
    throw new TypeError(`${what} row: column ${index} is missing`);
  }
  return field;
}

/**
 * Runs `statement` (a `COPY (…) TO STDOUT (FORMAT binary)`) on `db`'s own connection and hands
 * each row to `decode`, then its result to `visit`, as the rows arrive. Fields are views of the
 * received bytes: copy what you keep. The stream is drained to its end whatever happens (a COPY
 * stream left early stalls its connection); the first error of `decode`, `visit` or the reader
 * is rethrown then.
 * @param name the caller's name, for the error when `db` is a transaction.
 * @returns the number of rows visited.
 * @throws TypeError when `db` is a transaction (no postgres.js client of its own) or the stream
 *   is malformed or cut short; the statement's PostgreSQL error; whatever `decode` or `visit`
 *   threw.
 */
export async function streamCopyBinary<Row>(
  db: Executor,
  name: string,
  statement: string,
  decode: (fields: readonly (Buffer | null)[]) => Row,
  visit: (row: Row) => void,
): Promise<number> {
  const client = clientOf(db);
  if (!client) {
    throw new TypeError(`${name} needs a database handle (not a transaction)`);
  }
  const reader = new CopyBinaryReader();
  let visited = 0;
  let failure: { error: unknown } | null = null;
  const row = (fields: (Buffer | null)[]) => {
    if (failure) {
      return;
    }
    try {
      visit(decode(fields));
      visited++;
    } catch (error) {
      failure = { error };
    }
  };
  const stream = await client.unsafe(statement).readable();
  for await (const chunk of stream) {
    if (!failure) {
      try {
        reader.push(chunk as Buffer, row);
      } catch (error) {
        failure = { error };
      }
    }
  }
  if (!failure) {
    reader.end();
  }
  if (failure) {
    throw (failure as { error: unknown }).error;
  }
  return visited;
}
