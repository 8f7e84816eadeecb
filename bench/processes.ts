/**
 * Servers run as their own processes for the benchmarks (the production topology: the HTTP client
 * in the bench process does not share the server's event loop), a lean HTTP client (undici
 * `Client`, one keep-alive connection per simulated client), and CPU accounting of processes
 * from /proc (Linux) to split a figure's cost between server, PostgreSQL and client.
 * @module
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { Client } from "undici";

/** A server process started by {@link startServerProcess}. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("port")),
      );
    });
  });
}

/**
 * Starts `node --import tsx <script>` with `env` and a free PORT, its stdout discarded (its logs
 * cost it what they cost in production, but nothing in the bench process), and waits until
 * `GET /readyz` answers.
 * @throws Error when the process exits first or is not ready within 60 s.
 */
export async function startServerProcess(
  script: string,
  env: Readonly<Record<string, string>>,
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`${script} exited (${exitCode}) before it was ready`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      async (res) => {
        await res.arrayBuffer();
        return res.ok;
      },
      () => false,
    );
    if (ready) {
      break;
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${script} not ready after 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid as number,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `clients` keep-alive connections to `url`, one per simulated client. */
export class HttpClients {
  private readonly clients: Client[];

  constructor(url: string, clients: number) {
    this.clients = Array.from({ length: clients }, () => new Client(url));
  }

  /**
   * POSTs `body` as JSON on client `client`'s connection.
   * @returns the status (the response body is read and dropped).
   */
  async postJson(
    client: number,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<number> {
    const connection = this.clients[client % this.clients.length] as Client;
    const res = await connection.request({
      method: "POST",
      path,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    await res.body.dump();
    return res.statusCode;
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
  }
}

/** CPU seconds (user + system) the process `pid` has used so far; 0 once it is gone. */
export async function processCpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by every PostgreSQL process (server and backends) on this machine. */
export async function postgresCpuSeconds(): Promise<number> {
  let total = 0;
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (/^(?:\S*\/)?postgres[:\s\0]/.test(cmdline)) {
      total += await processCpuSeconds(Number(entry));
    }
  }
  return total;
}
