#!/usr/bin/env node
// svc: the package is source-only TypeScript, so register tsx (a dependency of this package,
// resolved from here) and run src/main.ts. See README.md.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
