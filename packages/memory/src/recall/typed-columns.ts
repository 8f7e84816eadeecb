/**
 * Columns of a user's cached log held in typed arrays (leaf indices, times, codes, flags): off
 * V8's heap, never scanned by its collector, grown by doubling.
 * @module
 */

/** The typed arrays a column is kept in. */
type TypedColumn = Float64Array | Int32Array | Uint8Array;

/** Room a column starts with once grown. */
const FIRST_ROOM = 1024;

/**
 * `column` when it holds at least `size` values, else a zero-filled copy with room for
 * max(`size`, twice its length, {@link FIRST_ROOM}) values.
 */
export function withRoom<T extends TypedColumn>(column: T, size: number): T {
  if (size <= column.length) {
    return column;
  }
  const Column = column.constructor as new (length: number) => T;
  const grown = new Column(Math.max(size, 2 * column.length, FIRST_ROOM));
  grown.set(column);
  return grown;
}
