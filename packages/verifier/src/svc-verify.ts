#!/usr/bin/env node
/**
 * The `svc-verify` program: {@link runCli} over the process's arguments, its result as the exit
 * status (0 verified, 1 not verified, 2 usage error). The published bin is this file built
 * (dist/svc-verify.js, plain node); in the workspace bin/svc-verify.js runs it through tsx.
 *
 * WebAssembly stays on V8's baseline compiler (Liftoff) in this process, as in `svc`: otherwise,
 * after the chain RPC's answers, node waits at exit for V8's background recompilation of the
 * WebAssembly HTTP parser of its `fetch` (docs/performance.md "svc start-up (`pnpm bench
 * startup`)"; 526 → 343 ms for one bundle against the local chain, median of 21).
 * @module
 */
import { setFlagsFromString } from "node:v8";
import { runCli } from "./cli.js";

setFlagsFromString("--liftoff-only");

process.exitCode = await runCli(process.argv.slice(2));
