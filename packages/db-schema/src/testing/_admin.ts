/**
 * Admin helpers of the test support: database URLs, creation and drop on the test server. Free of
 * vitest imports so the global setup (main process) can use them.
 * @module
 */
import postgres from "postgres";

/** `adminUrl` with its database path replaced by `name`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops database `name` on the server of `adminUrl`, disconnecting its sessions. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
}

/** Runs `fn` on a one-connection admin client, closing it afterwards. */
export async function withAdmin<T>(
  adminUrl: string,
  fn: (sql: postgres.Sql) => Promise<T>,
): Promise<T> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
