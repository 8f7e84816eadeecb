import { TestClock } from "@verifiable-memory/clock";
import { describe, expect, it } from "vitest";
import {
  describeSupervisorEvent,
  type RunningChild,
  type SupervisedChild,
  Supervisor,
  type SupervisorEvent,
} from "../src/index.js";

/** A child whose instances the test ends by hand (`crash`), recording what happened to it. */
class FakeChild implements SupervisedChild {
  readonly instances: { exit: (code: number | string) => void; stopped: boolean }[] = [];
  readonly journal: string[];
  /** When set, instances started from now on fail to become ready with this error. */
  failReady: string | null = null;

  constructor(
    readonly name: string,
    readonly tier: number,
    journal: string[],
  ) {
    this.journal = journal;
  }

  start(): RunningChild {
    let exit: (code: number | string) => void = () => {};
    const exited = new Promise<number | string>((done) => {
      exit = done;
    });
    const instance = { exit, stopped: false };
    this.instances.push(instance);
    this.journal.push(`start ${this.name}`);
    const failure = this.failReady;
    return {
      exited,
      ready: failure === null ? Promise.resolve() : Promise.reject(new Error(failure)),
      stop: async () => {
        this.journal.push(`stop ${this.name}`);
        instance.stopped = true;
        exit("SIGTERM");
        await exited;
      },
    };
  }

  /** Ends the current instance as a crash would. */
  crash(code: number | string = 1): void {
    this.instances.at(-1)?.exit(code);
  }
}

/** A backoff that waits for nothing but moves `clock` by the delay, recording each delay. */
function instantSleep(clock: TestClock, delays: number[]) {
  return async (ms: number) => {
    delays.push(ms);
    clock.advance(ms);
  };
}

/** Resolves once `predicate` holds, letting promise callbacks run in between. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !predicate(); i++) {
    await new Promise((done) => setImmediate(done));
  }
  expect(predicate()).toBe(true);
}

describe("Supervisor", () => {
  it("restarts with a doubling backoff and gives up on the 6th exit within 60 s", async () => {
    const clock = new TestClock();
    const delays: number[] = [];
    const events: SupervisorEvent[] = [];
    const journal: string[] = [];
    const supervisor = new Supervisor({
      clock,
      sleep: instantSleep(clock, delays),
      onEvent: (e) => events.push(e),
    });
    const api = new FakeChild("core-api", 2, journal);
    await supervisor.add(api);
    let gaveUp = false;
    void supervisor.gaveUp.then(() => {
      gaveUp = true;
    });
    for (let i = 1; i <= 5; i++) {
      api.crash(i % 2 === 0 ? "SIGKILL" : 1);
      await until(() => api.instances.length === i + 1 && events.at(-1)?.type === "restarted");
      clock.advance(1_000);
    }
    expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000]);
    expect(gaveUp).toBe(false);
    api.crash(1);
    expect(await supervisor.gaveUp).toEqual({ child: "core-api", exit: 1 });
    expect(api.instances).toHaveLength(6);
    expect(
      events.filter((e) => e.type === "exited").map((e) => describeSupervisorEvent(e)),
    ).toEqual([
      "core-api exited unexpectedly (exit code 1); restart 1 in 250 ms",
      "core-api exited unexpectedly (signal SIGKILL); restart 2 in 500 ms",
      "core-api exited unexpectedly (exit code 1); restart 3 in 1000 ms",
      "core-api exited unexpectedly (signal SIGKILL); restart 4 in 2000 ms",
      "core-api exited unexpectedly (exit code 1); restart 5 in 4000 ms",
    ]);
    expect(describeSupervisorEvent(events.at(-1) as SupervisorEvent)).toBe(
      "core-api exited unexpectedly (exit code 1) after 5 restarts within 60 s; stopping everything",
    );
  });

  it("counts restarts in a sliding window: crashes a minute apart never exhaust it", async () => {
    const clock = new TestClock();
    const delays: number[] = [];
    const supervisor = new Supervisor({ clock, sleep: instantSleep(clock, delays) });
    const chain = new FakeChild("local-chain", 1, []);
    await supervisor.add(chain);
    for (let i = 1; i <= 8; i++) {
      chain.crash();
      await until(() => chain.instances.length === i + 1);
      clock.advance(60_000);
    }
    expect(delays).toEqual(Array(8).fill(250));
  });

  it("caps the delay at maxDelayMs and applies an injected policy", async () => {
    const clock = new TestClock();
    const delays: number[] = [];
    const supervisor = new Supervisor({
      clock,
      sleep: instantSleep(clock, delays),
      policy: { initialDelayMs: 100, maxDelayMs: 1_000, maxRestarts: 7, windowMs: 600_000 },
    });
    const child = new FakeChild("anchor-service", 2, []);
    await supervisor.add(child);
    for (let i = 1; i <= 7; i++) {
      child.crash();
      await until(() => child.instances.length === i + 1);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    child.crash();
    expect((await supervisor.gaveUp).child).toBe("anchor-service");
  });

  it("restarts a lower tier first: an app's restart waits until PostgreSQL is back", async () => {
    const clock = new TestClock();
    const journal: string[] = [];
    const pending = new Map<number, () => void>();
    let next = 0;
    // A backoff the test releases by hand, in any order.
    const sleep = (ms: number) =>
      new Promise<void>((done) => {
        pending.set(next++, () => {
          clock.advance(ms);
          done();
        });
      });
    const supervisor = new Supervisor({ clock, sleep });
    const postgres = new FakeChild("postgres", 0, journal);
    const api = new FakeChild("core-api", 2, journal);
    await supervisor.add(postgres);
    await supervisor.add(api);
    journal.length = 0;
    postgres.crash("SIGKILL");
    api.crash(1);
    await until(() => pending.size === 2);
    pending.get(1)?.();
    await new Promise((done) => setImmediate(done));
    expect(journal).toEqual([]);
    pending.get(0)?.();
    await until(() => journal.length === 2);
    expect(journal).toEqual(["start postgres", "start core-api"]);
  });

  it("a restart that fails to become ready counts as another exit", async () => {
    const clock = new TestClock();
    const delays: number[] = [];
    const events: SupervisorEvent[] = [];
    const supervisor = new Supervisor({
      clock,
      sleep: instantSleep(clock, delays),
      onEvent: (e) => events.push(e),
      policy: { initialDelayMs: 250, maxDelayMs: 8_000, maxRestarts: 2, windowMs: 60_000 },
    });
    const api = new FakeChild("extension-api", 2, []);
    await supervisor.add(api);
    api.failReady = "did not become healthy";
    api.crash(1);
    expect(await supervisor.gaveUp).toEqual({ child: "extension-api", exit: "SIGTERM" });
    expect(delays).toEqual([250, 500]);
    expect(events.filter((e) => e.type === "restart-failed")).toHaveLength(2);
    expect(api.instances.slice(1).every((i) => i.stopped)).toBe(true);
  });

  it("does not restart a child whose first start fails", async () => {
    const supervisor = new Supervisor({ sleep: async () => {} });
    const api = new FakeChild("core-api", 2, []);
    api.failReady = "core-api exited before it became healthy";
    await expect(supervisor.add(api)).rejects.toThrow("exited before it became healthy");
    api.crash(1);
    await new Promise((done) => setImmediate(done));
    expect(api.instances).toHaveLength(1);
  });

  it("stops the highest tier first, one tier at a time, and restarts nothing while stopping", async () => {
    const journal: string[] = [];
    const supervisor = new Supervisor({ sleep: async () => {} });
    const postgres = new FakeChild("postgres", 0, journal);
    const chain = new FakeChild("local-chain", 1, journal);
    const core = new FakeChild("core-api", 2, journal);
    const extension = new FakeChild("extension-api", 2, journal);
    for (const child of [postgres, chain, core, extension]) {
      await supervisor.add(child);
    }
    journal.length = 0;
    await supervisor.stop();
    expect(journal).toEqual([
      "stop core-api",
      "stop extension-api",
      "stop local-chain",
      "stop postgres",
    ]);
    await new Promise((done) => setImmediate(done));
    expect(journal).toHaveLength(4);
    await expect(supervisor.add(new FakeChild("late", 2, journal))).rejects.toThrow("stopping");
  });

  it("refuses a policy that is not positive", () => {
    expect(
      () =>
        new Supervisor({
          policy: { initialDelayMs: 0, maxDelayMs: 8_000, maxRestarts: 5, windowMs: 60_000 },
        }),
    ).toThrow(RangeError);
  });
});
