/**
 * A small table of the distinct values of a mostly repeated column of a user's cached log
 * (namespaces, writers): each value gets an integer code once, and the column keeps codes in a
 * typed array (typed-columns.ts) instead of a reference per memory.
 * @module
 */
import { stringBytes } from "./sizes.js";

/** Estimated bytes of one table entry besides its key: the map entry and the value slot. */
const ENTRY_BYTES = 64;

/** Values by code; code 0 is null (no value). */
export class CodeTable<T> {
  /** The values, by code. */
  readonly values: (T | null)[] = [null];
  private readonly codes = new Map<string, number>();

  /**
   * The code of `value` (0 for null), known by `key`, added when new.
   * @returns the code and the estimated bytes the table grew by (0 when it was known).
   */
  code(key: string, value: T | null): { code: number; grown: number } {
    if (value === null) {
      return { code: 0, grown: 0 };
    }
    const known = this.codes.get(key);
    if (known !== undefined) {
      return { code: known, grown: 0 };
    }
    const code = this.values.push(value) - 1;
    this.codes.set(key, code);
    return { code, grown: stringBytes(key, false) + ENTRY_BYTES };
  }

  /** The value of `code` (null for 0). */
  at(code: number): T | null {
    return this.values[code] ?? null;
  }
}
