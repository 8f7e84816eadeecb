#!/usr/bin/env node
// svc-verify: the package is source-only TypeScript, so register tsx (a dependency of this
// package, resolved from here) and run src/cli.ts. See README.md.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli.ts");
process.exitCode = await runCli(process.argv.slice(2));
