#!/usr/bin/env node
/**
 * The `svc` entry point (the published bin is this file built, dist/main.js; in the workspace
 * bin/svc.js runs it through tsx): runs the CLI with the process's
 * arguments and sets the exit status. A closed standard output (`svc export | head`) ends the
 * run quietly.
 *
 * WebAssembly stays on V8's baseline compiler (Liftoff) in this process: Node's `fetch` (undici)
 * parses HTTP with a WebAssembly build of llhttp, whose parser function V8 recompiles with
 * TurboFan on a background thread once it has run a little, and Node waits for that compilation
 * before the process exits. On the first response of a one-shot command that wait is 100–250 ms,
 * longer than the request itself (docs/performance.md "svc start-up (`pnpm bench startup`)").
 * @module
 */
import { setFlagsFromString } from "node:v8";
import { run } from "./cli.js";

setFlagsFromString("--liftoff-only");

process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") {
    process.exit(process.exitCode ?? 0);
  }
  throw error;
});

process.exitCode = await run(process.argv.slice(2));
