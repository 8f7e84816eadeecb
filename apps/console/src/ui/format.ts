/**
 * Small display helpers: shortened keys and hashes, dates and SOL amounts.
 * @module
 */

/** `abcdef…uvwxyz`: the first and last `keep` characters of a long key or hash. */
export function short(text: string, keep = 6): string {
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An ISO 8601 time in the reader's locale and time zone. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** Lamports (decimal string) as SOL with up to 9 decimals. */
export function sol(lamports: string): string {
  const value = BigInt(lamports);
  const whole = value / 1_000_000_000n;
  const fraction = (value % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? `${whole} SOL` : `${whole}.${fraction} SOL`;
}

/** SOL typed by a person ("1.5") as lamports; null when it is not a positive amount. */
export function lamportsOf(solText: string): string | null {
  const match = /^\s*(\d{1,11})(?:\.(\d{1,9}))?\s*$/.exec(solText);
  if (match === null) {
    return null;
  }
  const lamports =
    BigInt(match[1] as string) * 1_000_000_000n + BigInt((match[2] ?? "").padEnd(9, "0"));
  return lamports > 0n ? lamports.toString() : null;
}
