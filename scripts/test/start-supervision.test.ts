/**
 * The supervisor of `pnpm start` with real processes (docs/operations.md "Restarts under pnpm
 * start"): the real `scripts/start.ts` on a temporary DATA_DIR (embedded PostgreSQL, local chain).
 * 1. Under four concurrent writers (two with an API key, two with a session), each child in turn
 *    (core-api, extension-api, anchor-service, local-chain, the PostgreSQL host, whose server the
 *    next host adopts, then that server's postmaster) gets SIGKILL; each is restarted (logged
 *    with its exit and delay), the writers get through again, and afterwards every acknowledged
 *    write (201) reads back with its content (from the list, with a key of its own).
 * 2. The restart budget: anchor-service killed as soon as each instance starts → after 5 restarts
 *    the 6th exit stops everything, `pnpm start` exits 1 and every port is free.
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  cleanUpLaunchers,
  countLines,
  killGroup,
  launch,
  listenOn,
  pidOf,
  ports,
  postmaster,
  prepareLaunchers,
  signIn,
  sleep,
  stopLaunchers,
  tail,
  terminate,
  waitFor,
  waitReady,
  work,
} from "./start-harness.js";

beforeAll(prepareLaunchers);

afterEach(stopLaunchers, 120_000);

afterAll(cleanUpLaunchers, 120_000);

interface Acknowledged {
  readonly id: string;
  readonly content: string;
}

describe("pnpm start supervision", () => {
  it("restarts each child killed with SIGKILL under concurrent writers; every acknowledged write reads back", async () => {
    const launcher = launch();
    await waitReady(launcher);
    const { session, key } = await signIn();

    const acknowledged: Acknowledged[] = [];
    let refused = 0;
    let writing = true;
    const writer = async (n: number, bearer: string) => {
      for (let i = 0; writing; i++) {
        const content = `writer ${n}, write ${i}`;
        try {
          const res = await fetch(`http://127.0.0.1:${ports.core}/memories`, {
            method: "POST",
            headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
            body: JSON.stringify({ content, metadata: { writer: n, i } }),
          });
          const body = (await res.json()) as { id?: string };
          if (res.status === 201 && body.id) {
            acknowledged.push({ id: body.id, content });
          } else {
            refused++;
          }
        } catch {
          refused++;
        }
        // Paces each writer under the per-credential rate limit (two writers share one credential:
        // at most 20 writes a second each, 1 200 a minute); not a synchronisation.
        await sleep(100);
      }
    };
    const writers = [key, key, session, session].map((bearer, n) => writer(n, bearer));

    // The PostgreSQL host too (its server outlives it and the next host adopts it), then that
    // server itself, now watched by the adopting host.
    const victims = [
      ["core-api", "signal SIGKILL", () => pidOf(launcher, "core-api")],
      ["extension-api", "signal SIGKILL", () => pidOf(launcher, "extension-api")],
      ["anchor-service", "signal SIGKILL", () => pidOf(launcher, "anchor-service")],
      ["local-chain", "signal SIGKILL", () => pidOf(launcher, "local-chain")],
      ["postgres", "signal SIGKILL", () => pidOf(launcher, "postgres")],
      ["postgres", "exit code 1", async () => (await postmaster()).pid],
    ] as const;
    for (const [child, exit, pid] of victims) {
      await waitFor(launcher, `writes before killing ${child}`, () => acknowledged.length > 0);
      const restartedLine = `[start] ${child} restarted`;
      const exitLine = `[start] ${child} exited unexpectedly (${exit}); restart `;
      const restartsBefore = countLines(launcher, restartedLine);
      const exitsBefore = launcher.output.filter((l) => l.startsWith(exitLine)).length;
      const serverBefore = (await postmaster()).pid;
      process.kill(await pid(), "SIGKILL");
      await waitFor(
        launcher,
        `${child} restarted`,
        () => countLines(launcher, restartedLine) > restartsBefore,
      );
      expect(launcher.output.filter((l) => l.startsWith(exitLine)).length).toBe(exitsBefore + 1);
      if (child === "postgres" && exit === "signal SIGKILL") {
        // The host's server outlived it: the new host adopted it rather than starting another.
        expect((await postmaster()).pid).toBe(serverBefore);
      }
      const ackedAfterRestart = acknowledged.length;
      await waitFor(
        launcher,
        `writes acknowledged after ${child} restarted`,
        () => acknowledged.length >= ackedAfterRestart + 8,
      );
    }
    writing = false;
    await Promise.all(writers);

    // Only PostgreSQL's own restart: no app was restarted because the database went away.
    for (const app of ["core-api", "extension-api", "anchor-service", "local-chain"]) {
      expect(
        countLines(launcher, `[start] ${app} restarted`),
        `${app}\n${tail(launcher, 200)}`,
      ).toBe(1);
    }
    expect(acknowledged.length).toBeGreaterThan(40);
    expect(new Set(acknowledged.map((a) => a.id)).size).toBe(acknowledged.length);
    // Read back through the list (200 a page) with a key of its own: the writers' credentials
    // have used up their rate limit.
    const { key: reader } = await api<{ key: string }>("/keys", {
      bearer: session,
      body: { label: "supervision reader" },
      expected: 201,
    });
    const stored = new Map<string, string>();
    for (let cursor: string | null = null; ; ) {
      const page: { items: { id: string; content: string }[]; nextCursor: string | null } =
        await api(`/memories?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
          bearer: reader,
        });
      for (const item of page.items) {
        stored.set(item.id, item.content);
      }
      cursor = page.nextCursor;
      if (cursor === null) {
        break;
      }
    }
    const lost = acknowledged.filter((memory) => stored.get(memory.id) !== memory.content);
    expect(lost).toEqual([]);
    console.log(
      `supervision: ${acknowledged.length} acknowledged writes all read back; ${refused} refused or unanswered while a child was down`,
    );
    expect(await terminate(launcher)).toEqual({ code: 0, signal: null });
    expect(launcher.output).toContain("[start] stopped");
    // The adopted server was stopped with the service.
    expect(existsSync(join(work, ".data", "postgres", "postmaster.pid"))).toBe(false);
  }, 300_000);

  it("gives up after 5 restarts of one child within 60 s: everything stops, exit 1", async () => {
    const launcher = launch();
    await waitReady(launcher);
    const startedLine = /^\[start\] started anchor-service \(pid \d+\)$/;
    for (let instance = 1; instance <= 6; instance++) {
      await waitFor(
        launcher,
        `anchor-service instance ${instance}`,
        () => launcher.output.filter((l) => startedLine.test(l)).length >= instance,
      );
      process.kill(pidOf(launcher, "anchor-service"), "SIGKILL");
    }
    const timer = setTimeout(() => killGroup(launcher), 60_000);
    const outcome = await launcher.exited;
    clearTimeout(timer);
    expect(outcome, tail(launcher)).toEqual({ code: 1, signal: null });
    const restarts = launcher.output.filter((l) => l.startsWith("[start] anchor-service exited"));
    expect(restarts).toEqual([
      "[start] anchor-service exited unexpectedly (signal SIGKILL); restart 1 in 250 ms",
      "[start] anchor-service exited unexpectedly (signal SIGKILL); restart 2 in 500 ms",
      "[start] anchor-service exited unexpectedly (signal SIGKILL); restart 3 in 1000 ms",
      "[start] anchor-service exited unexpectedly (signal SIGKILL); restart 4 in 2000 ms",
      "[start] anchor-service exited unexpectedly (signal SIGKILL); restart 5 in 4000 ms",
      "[start] anchor-service exited unexpectedly (signal SIGKILL) after 5 restarts within 60 s; stopping everything",
    ]);
    expect(launcher.output).toContain("[start] stopped");
    for (const port of [ports.core, ports.extension, ports.anchor, ports.chain]) {
      expect(
        await listenOn(port),
        `port ${port} of ${JSON.stringify(ports)}\n${tail(launcher)}`,
      ).toBe(port);
    }
  }, 180_000);
});
