#!/usr/bin/env node
// svc-mcp: the stdio MCP server. The package is source-only TypeScript, so register tsx (a
// dependency of this package, resolved from here) and run src/stdio.ts. See README.md.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/stdio.ts");
process.exitCode = await main();
