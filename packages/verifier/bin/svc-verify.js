#!/usr/bin/env node
// svc-verify in the workspace: runs the TypeScript source through tsx (a devDependency). The
// published package's bin is the built dist/svc-verify.js instead (docs/releasing.md).
import { register } from "tsx/esm/api";

register();
await import("../src/svc-verify.ts");
