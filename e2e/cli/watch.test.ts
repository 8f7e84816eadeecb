/**
 * `svc watch` as a user runs it: the bin in a child process following the user's memory events
 * from core-api over real HTTP on a fresh PostgreSQL, as JSON lines or text, filtered by
 * namespace, stopped with Ctrl-C (SIGINT, exit 0).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CoreApp, startCoreApi } from "../_apps.js";
import { BIN, type CliUser, newCliUser as newUserUnder, runSvc, runSvcJson } from "./_svc.js";

let t: CoreApp;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-watch-"));
  t = await startCoreApi();
});

afterAll(async () => {
  await t?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A fresh CLI user under this file's scratch directory. */
const newCliUser = () => newUserUnder(scratch);
/** Runs `svc args…` as `user` against the test API. */
const svc = (user: CliUser, args: readonly string[]) => runSvc(t.url, user, args);
/** Runs `svc … --json` as `user`, expects exit 0 and returns the parsed stdout. */
const svcJson = <T>(user: CliUser, args: readonly string[]) => runSvcJson<T>(t.url, user, args);

describe("svc watch", () => {
  it("watches memory events as JSON lines, from an event id, and stops with exit 0 on Ctrl-C", async () => {
    const user = await newCliUser();
    expect((await svc(user, ["login"])).code).toBe(0);
    const first = await svcJson<{ id: string }>(user, [
      "remember",
      "watched one",
      "--namespace",
      "w/a",
    ]);
    const second = await svcJson<{ id: string }>(user, ["remember", "watched two"]);
    const child = spawn(process.execPath, [BIN, "watch", "--since", "0", "--json"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: user.home,
        XDG_CONFIG_HOME: user.config,
        SVC_URL: t.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    const events = await new Promise<{ id: string; type: string; data: { id: string } }[]>(
      (resolve, reject) => {
        child.on("error", reject);
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          const lines = stdout.split("\n").filter((line) => line !== "");
          if (lines.length >= 2) {
            resolve(lines.map((line) => JSON.parse(line)));
          }
        });
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ["memory.created", first.id],
      ["memory.created", second.id],
    ]);
    const filtered = await new Promise<string>((resolve) => {
      const only = spawn(process.execPath, [BIN, "watch", "--since", "0", "--namespace", "w/a"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: user.home,
          XDG_CONFIG_HOME: user.config,
          SVC_URL: t.url,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      only.stdout.setEncoding("utf8").once("data", (chunk: string) => {
        only.kill("SIGINT");
        resolve(chunk);
      });
    });
    expect(filtered).toContain(`created ${first.id}`);
    expect(filtered).toContain("[w/a]");
  });
});
