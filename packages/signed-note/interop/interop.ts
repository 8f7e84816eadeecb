/**
 * Runs interop/main.go (Go's golang.org/x/mod/sumdb/note and sumdb/tlog, GOPATH mode as Debian's
 * golang-golang-x-mod-dev installs them) on cases built here and returns both sides' answers, so
 * the test can compare them byte for byte (docs/protocol.md §13.2 "Signed notes").
 * @module
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where Debian's golang-golang-x-mod-dev puts golang.org/x/mod. */
const DEBIAN_GOPATH = "/usr/share/gocode";
const here = dirname(fileURLToPath(import.meta.url));

/** The case file main.go reads. */
export interface GoInput {
  readonly skey: string;
  /** Verifier keys Go opens the notes with. */
  readonly vkeys: readonly string[];
  /** Note texts Go signs with `skey`. */
  readonly texts: readonly string[];
  /** Signed notes Go opens with `vkey`. */
  readonly notes: readonly string[];
  /** Leaf data, base64: Go builds their tree and reports its root at every size. */
  readonly leaves: readonly string[];
  /** Tiles (tile height 8) whose path and data Go computes from the leaves. */
  readonly tiles: readonly { l: number; n: number; w: number }[];
}

/** What Go answered. */
export interface GoOutput {
  /** Go's `NewEd25519VerifierKey` of the signer key's name and public key. */
  readonly vkey: string;
  readonly signed: string[] | null;
  readonly opened: { ok: boolean; text: string; error: string }[] | null;
  readonly roots: string[] | null;
  readonly tilePaths: string[] | null;
  readonly tileData: string[] | null;
}

/** Whether a Go toolchain with golang.org/x/mod in GOPATH is available. */
export function goAvailable(): boolean {
  const probe = spawnSync("go", ["list", "golang.org/x/mod/sumdb/note"], {
    env: goEnv(),
    encoding: "utf8",
  });
  return probe.status === 0;
}

function goEnv(): NodeJS.ProcessEnv {
  const gopath = process.env.GOPATH ? `${process.env.GOPATH}:${DEBIAN_GOPATH}` : DEBIAN_GOPATH;
  return { ...process.env, GOPATH: gopath, GO111MODULE: "off" };
}

/**
 * Runs main.go on `input`.
 * @throws Error with Go's stderr when `go run` fails.
 */
export function runGo(input: GoInput): GoOutput {
  const run = spawnSync("go", ["run", join(here, "main.go")], {
    env: goEnv(),
    input: JSON.stringify(input),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    throw new Error(`go run interop/main.go failed (${run.status}): ${run.stderr}`);
  }
  return JSON.parse(run.stdout) as GoOutput;
}
