#!/usr/bin/env node
/**
 * The `svc-verify` program: {@link runCli} over the process's arguments, its result as the exit
 * status (0 verified, 1 not verified, 2 usage error). The published bin is this file built
 * (dist/svc-verify.js, plain node); in the workspace bin/svc-verify.js runs it through tsx.
 * @module
 */
import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2));
