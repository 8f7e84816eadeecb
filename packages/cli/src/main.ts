#!/usr/bin/env node
/**
 * The `svc` entry point (the published bin is this file built, dist/main.js; in the workspace
 * bin/svc.js runs it through tsx): runs the CLI with the process's
 * arguments and sets the exit status. A closed standard output (`svc export | head`) ends the
 * run quietly.
 * @module
 */
import { run } from "./cli.js";

process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") {
    process.exit(process.exitCode ?? 0);
  }
  throw error;
});

process.exitCode = await run(process.argv.slice(2));
