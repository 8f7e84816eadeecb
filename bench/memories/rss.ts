/**
 * The memory figures of the memories bench (Linux: /proc/<pid>/status): core-api as its own
 * process, peak and current RSS once the 100 000-memory user is cached, beside the same process
 * idle after start, and the growth beside the plaintexts' bytes.
 * @module
 */
import { type Figure, procStatusMiB } from "../lib.js";
import { startServerProcess } from "../processes.js";
import { BENCH_ENV } from "../sign-in.bench.js";
import { type BenchUser, NEEDLE, rawScan, search } from "./common.js";

/** Reads a `Vm…` line of /proc/<pid>/status in MiB. */
async function procMiB(pid: number, field: "VmHWM" | "VmRSS"): Promise<number> {
  const mib = await procStatusMiB(pid, field);
  if (mib === null) {
    throw new Error(`no ${field} in /proc/${pid}/status`);
  }
  return mib;
}

/**
 * RSS of core-api as its own process (src/main.ts, the same database and secrets), read from
 * /proc/<pid>/status: peak (VmHWM) and current (VmRSS) idle after start, then after 20 searches
 * of the user (the first one loads the log into the cache).
 */
export async function rssFigures(
  databaseUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const api = await startServerProcess("apps/core-api/src/main.ts", {
    ...BENCH_ENV,
    DATABASE_URL: databaseUrl,
  });
  try {
    const idle = { peak: await procMiB(api.pid, "VmHWM"), now: await procMiB(api.pid, "VmRSS") };
    const expected = rawScan(contents, NEEDLE, 20).length;
    for (let i = 0; i < 20; i++) {
      await search(api.url, user, expected);
    }
    const cached = {
      peak: await procMiB(api.pid, "VmHWM"),
      now: await procMiB(api.pid, "VmRSS"),
    };
    const plaintextMiB = contents.reduce((sum, c) => sum + Buffer.byteLength(c), 0) / 2 ** 20;
    return [
      {
        name: "core-api peak RSS (VmHWM), user cached",
        value: cached.peak,
        baseline: idle.peak,
        unit: "MiB",
        baselineName: "same process idle after start",
      },
      {
        name: "core-api RSS (VmRSS) after 20 searches",
        value: cached.now,
        baseline: idle.now,
        unit: "MiB",
        baselineName: "same process idle after start",
      },
      {
        name: "core-api peak RSS growth from caching",
        value: cached.peak - idle.peak,
        baseline: plaintextMiB,
        unit: "MiB",
        baselineName: "the plaintexts' UTF-8 bytes",
      },
    ];
  } finally {
    await api.stop();
  }
}
