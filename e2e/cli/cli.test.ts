/**
 * `svc` as a user runs it: the bin (bin/svc.js) in a child process, against core-api running in
 * this process over real HTTP on a fresh PostgreSQL (apps/core-api/test/helpers.ts), the local
 * chain (litesvm with the commitment program) and the anchor service's own sweep to anchor.
 * Every test uses its own HOME and XDG_CONFIG_HOME. The last test stops the API and verifies an
 * export against the chain alone.
 */

import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";
import {
  BIN,
  type CliUser,
  jsonError,
  newCliUser as newUserUnder,
  type RunOptions,
  runSvc,
  runSvcJson,
} from "./_svc.js";

let t: CoreApp;
let apiStopped = false;
let chain: Chain;
let scratch: string;
let authority: Keypair;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-cli-"));
  chain = await startChain(join(scratch, "chain"));
  authority = chain.authority;
  const authorityPath = join(scratch, "authority.json");
  await writeFile(authorityPath, JSON.stringify(Array.from(authority.secretKey)));
  t = await startCoreApi({
    env: {
      CHAIN_RPC_URL: chain.url,
      SIWS_CHAIN_ID: "localnet",
      AUTHORITY_KEYPAIR_PATH: authorityPath,
    },
  });
});

afterAll(async () => {
  if (!apiStopped) {
    await t?.close();
  }
  await chain?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** Anchors every user with pending leaves, as the anchor service's worker does each sweep. */
async function anchorNow(): Promise<void> {
  await chain.anchorNow(t.db);
}

/** A fresh CLI user under this file's scratch directory. */
const newCliUser = () => newUserUnder(scratch);
/** Runs `svc args…` as `user` against the test API. */
const svc = (user: CliUser, args: readonly string[], options?: RunOptions) =>
  runSvc(t.url, user, args, options);
/** Runs `svc … --json` as `user`, expects exit 0 and returns the parsed stdout. */
const svcJson = <T = Record<string, unknown>>(
  user: CliUser,
  args: readonly string[],
  options?: RunOptions,
) => runSvcJson<T>(t.url, user, args, options);

interface CreatedMemory {
  id: string;
  leafIndex: number;
  namespace: string | null;
  metadata: Record<string, unknown>;
  writtenBy: { kind: string; keyId?: string } | null;
}

/** Shared across the tests below, which run in order. */
let owner: CliUser;
const ids: string[] = [];
let exportFile: string;

describe("svc", () => {
  it("logs in from the default Solana CLI keypair file and stores the session with mode 0600", async () => {
    owner = await newCliUser();
    const login = await svcJson<{ kind: string; publicKey: string; credentialsFile: string }>(
      owner,
      ["login"],
    );
    expect(login.kind).toBe("session");
    expect(login.publicKey).toBe(owner.keypair.publicKey.toBase58());
    expect(login.credentialsFile).toBe(join(owner.config, "svc", "credentials.json"));

    const file = await stat(login.credentialsFile);
    expect(file.mode & 0o777).toBe(0o600);
    expect((await stat(join(owner.config, "svc"))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(login.credentialsFile, "utf8")) as Record<
      string,
      unknown
    >;
    expect(stored).toMatchObject({
      url: t.url,
      kind: "session",
      publicKey: owner.keypair.publicKey.toBase58(),
      keypairPath: owner.keypairPath,
    });
    // The key itself is never copied into the credentials file.
    expect(JSON.stringify(stored)).not.toContain(
      JSON.stringify(Array.from(owner.keypair.secretKey)),
    );

    const whoami = await svcJson(owner, ["whoami"]);
    expect(whoami).toMatchObject({ kind: "session", url: t.url, expired: false });

    // --keypair with another file, human output.
    const other = await newCliUser();
    const path = join(other.home, "wallet.json");
    await writeFile(path, JSON.stringify(Array.from(other.keypair.secretKey)));
    const human = await svc(other, ["login", "--keypair", path]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`as ${other.keypair.publicKey.toBase58()}`);

    // A file that is not a keypair is a usage error; so is no credential at all.
    await writeFile(path, "[1,2,3]");
    const bad = await svc(other, ["login", "--keypair", path, "--json"]);
    expect(bad.code).toBe(2);
    expect(jsonError(bad).code).toBe("usage");
    const fresh = await newCliUser();
    const none = await svc(fresh, ["recall", "x", "--json"]);
    expect(none.code).toBe(4);
    expect(jsonError(none).code).toBe("not_logged_in");
  });

  it("remembers, recalls, gets, updates and shows history, with --json that parses", async () => {
    const created = await svcJson<CreatedMemory>(owner, [
      "remember",
      "The user prefers French.",
      "--meta",
      "topic=prefs",
      "--meta",
      "n=3",
      "--meta",
      'tags=["a","b"]',
      "--namespace",
      "notes",
    ]);
    expect(created.metadata).toEqual({ topic: "prefs", n: 3, tags: ["a", "b"] });
    expect(created.namespace).toBe("notes");
    ids.push(created.id);

    const contentFile = join(owner.home, "note.txt");
    await writeFile(contentFile, "Meeting moved to Tuesday.\nBring the slides.");
    const fromFile = await svcJson<CreatedMemory>(owner, ["remember", "--file", contentFile]);
    ids.push(fromFile.id);

    const recalled = await svcJson<{ items: { id: string; content: string }[] }>(owner, [
      "recall",
      "french",
    ]);
    expect(recalled.items.map((m) => m.id)).toEqual([created.id]);
    const byMeta = await svcJson<{ items: { id: string }[] }>(owner, [
      "recall",
      "--meta",
      'n={"$gte":2}',
      "--prefix",
      "no",
    ]);
    expect(byMeta.items.map((m) => m.id)).toEqual([created.id]);
    const relevance = await svcJson<{ items: { id: string; score: number }[] }>(owner, [
      "recall",
      "tuesday slides",
      "--relevance",
      "--limit",
      "5",
    ]);
    expect(relevance.items[0]?.id).toBe(fromFile.id);
    expect(relevance.items[0]?.score).toBeGreaterThan(0);
    const listed = await svcJson<{ items: { id: string }[] }>(owner, ["recall"]);
    expect(listed.items.map((m) => m.id)).toEqual([fromFile.id, created.id]);

    const human = await svc(owner, ["recall", "french"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("The user prefers French.");
    expect(human.stdout).toContain("1 found");

    const got = await svcJson<{ content: string }>(owner, ["get", fromFile.id]);
    expect(got.content).toBe("Meeting moved to Tuesday.\nBring the slides.");

    const updated = await svcJson<{ id: string; supersedes: string }>(owner, [
      "update",
      created.id,
      "The user prefers French, then Spanish.",
      "--meta",
      "topic=prefs",
    ]);
    expect(updated.supersedes).toBe(created.id);
    ids.push(updated.id);
    const history = await svcJson<{ items: { id: string }[] }>(owner, ["history", updated.id]);
    expect(history.items.map((m) => m.id)).toEqual([created.id, updated.id]);

    // Not found: exit 1, the API's error as JSON on stderr; one clear line without --json.
    const missing = await svc(owner, ["get", "00000000-0000-4000-8000-000000000000", "--json"]);
    expect(missing.code).toBe(1);
    expect(jsonError(missing)).toMatchObject({ code: "not_found", status: 404 });
    const missingHuman = await svc(owner, ["get", "00000000-0000-4000-8000-000000000000"]);
    expect(missingHuman.code).toBe(1);
    expect(missingHuman.stderr.trim().split("\n")).toHaveLength(1);
    expect(missingHuman.stderr).toMatch(/^svc: .*\[not_found, HTTP 404, request id \S+\]$/m);

    // Usage errors: exit 2.
    const both = await svc(owner, ["remember", "x", "--file", contentFile]);
    expect(both.code).toBe(2);
    const badMeta = await svc(owner, ["remember", "x", "--meta", "novalue", "--json"]);
    expect(badMeta.code).toBe(2);
    expect(jsonError(badMeta).message).toMatch(/key=value/);
    const help = await svc(owner, ["keys", "create", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--scope <scope>");
    expect((await svc(owner, [])).code).toBe(2);
    const noArg = await svc(owner, ["get", "--json"]);
    expect(noArg.code).toBe(2);
    expect(jsonError(noArg).code).toBe("usage");
  });

  it("renews an expired session with the stored keypair file", async () => {
    const path = join(owner.config, "svc", "credentials.json");
    const stored = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    const past = "2020-01-01T00:00:00.000Z";
    // Expired by this machine's clock: renewed before the call.
    await writeFile(
      path,
      JSON.stringify({
        ...stored,
        token: "expired.jwt.token",
        expiresAt: past,
        localExpiresAt: past,
      }),
      { mode: 0o600 },
    );
    const log = await svcJson<{ treeSize: number }>(owner, ["log"]);
    expect(log.treeSize).toBe(3);
    const renewed = JSON.parse(await readFile(path, "utf8")) as {
      token: string;
      localExpiresAt: string;
    };
    expect(renewed.token).not.toBe("expired.jwt.token");
    expect(Date.parse(renewed.localExpiresAt)).toBeGreaterThan(Date.now());
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    // Refused by the API (401) although not expired locally: renewed, and the call repeated.
    await writeFile(path, JSON.stringify({ ...renewed, token: "revoked.jwt.token" }), {
      mode: 0o600,
    });
    const created = await svcJson<CreatedMemory>(owner, ["remember", "after a 401"]);
    expect(created.id).toEqual(expect.any(String));
    await svcJson(owner, ["forget", created.id]);
    expect(JSON.parse(await readFile(path, "utf8")).token).not.toBe("revoked.jwt.token");
  });

  it("creates a scoped, namespace-confined key, and an agent uses it", async () => {
    const key = await svcJson<{ id: string; key: string; scopes: string[]; namespace: string }>(
      owner,
      [
        "keys",
        "create",
        "--label",
        "research agent",
        "--scope",
        "memories:read",
        "--scope",
        "memories:write",
        "--namespace",
        "agent:research",
        "--expires",
        "7d",
      ],
    );
    expect(key.key).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(key.scopes.sort()).toEqual(["memories:read", "memories:write"]);
    expect(key.namespace).toBe("agent:research");

    const agent = await newCliUser();
    const login = await svcJson<{ kind: string; keyPrefix: string }>(
      agent,
      ["login", "--api-key", "-"],
      { stdin: `${key.key}\n` },
    );
    expect(login).toMatchObject({ kind: "api_key", keyPrefix: key.key.slice(0, 12) });
    expect((await stat(join(agent.config, "svc", "credentials.json"))).mode & 0o777).toBe(0o600);

    const written = await svcJson<CreatedMemory>(agent, ["remember", "Found three papers."]);
    expect(written.namespace).toBe("agent:research");
    expect(written.writtenBy).toEqual({ kind: "api_key", keyId: key.id });
    ids.push(written.id);
    // Confined: the agent sees only its namespace.
    const seen = await svcJson<{ items: { id: string }[] }>(agent, ["recall"]);
    expect(seen.items.map((m) => m.id)).toEqual([written.id]);
    const outside = await svc(agent, ["get", ids[0] as string, "--json"]);
    expect(outside.code).toBe(1);
    // Without memories:delete, and without a session for /keys: exit 4.
    const forget = await svc(agent, ["forget", written.id, "--json"]);
    expect(forget.code).toBe(4);
    expect(jsonError(forget).code).toBe("insufficient_scope");
    const keysList = await svc(agent, ["keys", "list", "--json"]);
    expect(keysList.code).toBe(4);
    expect(jsonError(keysList).code).toBe("session_required");

    // SVC_API_KEY works without any stored credential.
    const bare = await newCliUser();
    const viaEnv = await svcJson<{ items: { id: string }[] }>(bare, ["recall", "papers"], {
      env: { SVC_API_KEY: key.key },
    });
    expect(viaEnv.items.map((m) => m.id)).toEqual([written.id]);

    // The owner lists and revokes it; the agent's next call is refused (exit 4).
    const listed = await svcJson<{ items: { id: string; revokedAt: string | null }[] }>(owner, [
      "keys",
      "list",
    ]);
    expect(listed.items.map((k) => k.id)).toContain(key.id);
    await svcJson(owner, ["keys", "revoke", key.id]);
    const refused = await svc(agent, ["recall", "--json"]);
    expect(refused.code).toBe(4);
    expect(jsonError(refused).code).toBe("unauthorized");
    const refusedHuman = await svc(agent, ["recall"]);
    expect(refusedHuman.stderr).toMatch(/svc login/);

    const badScope = await svc(owner, ["keys", "create", "--label", "x", "--scope", "all"]);
    expect(badScope.code).toBe(2);
  });

  it("serves the memory tools to an MCP client over stdio with the stored credential (svc mcp)", async () => {
    const user = await newCliUser();
    expect((await svc(user, ["login"])).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--namespace", "agent:mcp"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: user.home,
        XDG_CONFIG_HOME: user.config,
        SVC_URL: t.url,
      },
      stderr: "pipe",
    });
    const mcp = new Client({ name: "cli-test", version: "1.0.0" });
    await mcp.connect(transport);
    try {
      const tools = (await mcp.listTools()).tools.map((tool) => tool.name).sort();
      expect(tools).toEqual([
        "forget",
        "get",
        "history",
        "list",
        "prove",
        "recall",
        "remember",
        "update",
        "verify",
      ]);
      const stored = (await mcp.callTool({
        name: "remember",
        arguments: { content: "told to the agent over MCP", metadata: { via: "mcp" } },
      })) as { content: { type: string; text: string }[] };
      const memory = JSON.parse(stored.content[0]?.text ?? "{}") as {
        id: string;
        namespace: string;
      };
      expect(memory.namespace).toBe("agent:mcp");
      const found = (await mcp.callTool({
        name: "recall",
        arguments: { query: "over MCP" },
      })) as { content: { type: string; text: string }[] };
      expect(found.content[0]?.text).toContain(memory.id);
    } finally {
      await mcp.close();
    }
    const listed = await svcJson<{ items: { id: string }[] }>(user, ["recall", "over MCP"]);
    expect(listed.items).toHaveLength(1);
  });

  it("imports a JSON Lines file through the batch route, and refuses a malformed one whole", async () => {
    const file = join(owner.home, "import.jsonl");
    await writeFile(
      file,
      [
        JSON.stringify({ content: "imported one", metadata: { source: "import" } }),
        "",
        JSON.stringify({ content: "imported two", namespace: "imports/b" }),
        JSON.stringify({ content: "imported three" }),
      ].join("\n"),
    );
    const run = await svc(owner, ["import", file, "--namespace", "imports/a", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("importing ["); // no progress bar without a terminal
    const result = JSON.parse(run.stdout) as {
      imported: number;
      items: { line: number; id: string; leafIndex: number }[];
    };
    expect(result.imported).toBe(3);
    expect(result.items.map((i) => i.line)).toEqual([1, 3, 4]);
    const leaves = result.items.map((i) => i.leafIndex);
    expect(leaves).toEqual([leaves[0], (leaves[0] ?? 0) + 1, (leaves[0] ?? 0) + 2]);
    ids.push(...result.items.map((i) => i.id));
    const second = await svcJson<{ namespace: string }>(owner, ["get", result.items[1]?.id ?? ""]);
    expect(second.namespace).toBe("imports/b");
    const first = await svcJson<{ namespace: string; metadata: unknown }>(owner, [
      "get",
      result.items[0]?.id ?? "",
    ]);
    expect(first).toMatchObject({ namespace: "imports/a", metadata: { source: "import" } });

    const before = await svcJson<{ treeSize: number }>(owner, ["log"]);
    await writeFile(file, `${JSON.stringify({ content: "fine" })}\n{"content": 5}\n`);
    const bad = await svc(owner, ["import", file, "--json"]);
    expect(bad.code).toBe(2);
    expect(jsonError(bad).message).toMatch(/^line 2: /);
    const after = await svcJson<{ treeSize: number }>(owner, ["log"]);
    expect(after.treeSize).toBe(before.treeSize);
  });

  it("shares memories through a capability URL", async () => {
    const grant = await svcJson<{ url: string; maxUses: number; operation: unknown }>(owner, [
      "share",
      ids[1] as string,
      ids[2] as string,
      "--uses",
      "2",
      "--expires",
      "1h",
    ]);
    expect(grant.url).toMatch(/\/agent-cases\/[1-9A-HJ-NP-Za-km-z]+$/);
    expect(grant.maxUses).toBe(2);
    expect(grant.operation).toEqual({ type: "read_memories", memoryIds: [ids[1], ids[2]] });
    const human = await svc(owner, ["share", ids[1] as string]);
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toMatch(/^http:\/\/\S+\/agent-cases\/\S+$/);
    const tooLong = await svc(owner, ["share", ids[1] as string, "--expires", "90d"]);
    expect(tooLong.code).toBe(2);
  });

  it("exports every memory with its proof, and verifies a memory against the chain", async () => {
    // Not anchored yet: verify says so (exit 1).
    const pending = await svc(owner, ["verify", ids[0] as string, "--rpc", chain.url, "--json"]);
    expect(pending.code).toBe(1);
    expect(JSON.parse(pending.stdout)).toMatchObject({ verified: false, reason: "not_anchored" });

    await anchorNow();

    const verified = await svcJson<{
      verified: boolean;
      contentChecked: boolean;
      pinned: { authority: string };
    }>(owner, ["verify", ids[1] as string, "--rpc", chain.url]);
    expect(verified).toMatchObject({ verified: true, contentChecked: true });
    expect(verified.pinned.authority).toBe(authority.publicKey.toBase58());
    const human = await svc(owner, ["verify", ids[1] as string, "--rpc", chain.url]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^VERIFIED\n/);
    // A wrong pinned authority fails.
    const wrong = await svc(owner, [
      "verify",
      ids[1] as string,
      "--rpc",
      chain.url,
      "--authority",
      Keypair.generate().publicKey.toBase58(),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain("NOT VERIFIED: authority_mismatch");

    const bundle = await svcJson<{ anchored: boolean; memoryId: string }>(owner, [
      "prove",
      ids[1] as string,
    ]);
    expect(bundle).toMatchObject({ anchored: true, memoryId: ids[1] });

    // export > file.jsonl (stdout), oldest first, every version.
    const run = await svc(owner, ["export"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    // Every memory but the one forgotten (its leaf stays in the log, its body is gone).
    const treeSize = (await svcJson<{ treeSize: number }>(owner, ["log"])).treeSize;
    expect(treeSize).toBe(ids.length + 1);
    expect(lines).toHaveLength(ids.length);
    const parsed = lines.map(
      (line) => JSON.parse(line) as { memory: { id: string }; proof: { anchored: boolean } },
    );
    expect(new Set(parsed.map((p) => p.memory.id))).toEqual(new Set(ids));
    expect(parsed.every((p) => p.proof.anchored)).toBe(true);
    exportFile = join(owner.home, "export.jsonl");
    await writeFile(exportFile, run.stdout);

    // -o writes the same lines to a 0600 file.
    const toFile = join(owner.home, "export-o.jsonl");
    const written = await svcJson<{ exported: number; anchored: number }>(owner, [
      "export",
      "-o",
      toFile,
    ]);
    expect(written).toMatchObject({ exported: ids.length, anchored: ids.length, pending: 0 });
    expect((await stat(toFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(toFile, "utf8")).toBe(run.stdout);
  });

  it("verifies the export offline with the API stopped; a tampered line fails with exit 1", async () => {
    await t.close();
    apiStopped = true;
    const down = await svc(owner, ["recall", "--json"]);
    expect(down.code).toBe(3);
    expect(jsonError(down).code).toBe("network_error");

    const ok = await svc(owner, ["verify", "--bundle", exportFile, "--rpc", chain.url, "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    const result = JSON.parse(ok.stdout) as {
      verified: boolean;
      total: number;
      passed: number;
      results: { verified: boolean; contentChecked: boolean }[];
    };
    expect(result).toMatchObject({ verified: true, total: ids.length, passed: ids.length });
    expect(result.results.every((r) => r.verified && r.contentChecked)).toBe(true);
    const human = await svc(owner, ["verify", "--bundle", exportFile, "--rpc", chain.url, "-v"]);
    expect(human.code).toBe(0);
    expect(human.stdout.match(/ VERIFIED \(content checked\)$/gm)).toHaveLength(ids.length);
    expect(human.stdout).toContain(`${ids.length} of ${ids.length} verified against ${chain.url}`);

    // Tamper with one line's content: that line fails, the others still verify.
    const lines = (await readFile(exportFile, "utf8")).trim().split("\n");
    const entry = JSON.parse(lines[1] as string) as { memory: { content: string } };
    entry.memory.content = `${entry.memory.content} (edited)`;
    lines[1] = JSON.stringify(entry);
    // And another line's metadata, which the leaf commits.
    const other = JSON.parse(lines[0] as string) as {
      memory: { metadata: Record<string, unknown> };
    };
    other.memory.metadata = { ...other.memory.metadata, topic: "forged" };
    lines[0] = JSON.stringify(other);
    const tampered = join(owner.home, "tampered.jsonl");
    await writeFile(tampered, `${lines.join("\n")}\n`);
    const bad = await svc(owner, ["verify", "--bundle", tampered, "--rpc", chain.url, "--json"]);
    expect(bad.code).toBe(1);
    const badResult = JSON.parse(bad.stdout) as {
      verified: boolean;
      failed: number;
      results: { line: number; verified: boolean; reason: string | null }[];
    };
    expect(badResult.verified).toBe(false);
    expect(badResult.failed).toBe(2);
    expect(badResult.results.find((r) => r.line === 2)?.reason).toBe("content_mismatch");
    expect(badResult.results.find((r) => r.line === 1)?.reason).toBe("leaf_mismatch");
    expect(badResult.results.filter((r) => r.verified)).toHaveLength(ids.length - 2);
    const badHuman = await svc(owner, ["verify", "--bundle", tampered, "--rpc", chain.url]);
    expect(badHuman.code).toBe(1);
    expect(badHuman.stdout).toContain("NOT VERIFIED: content_mismatch");
    expect(badHuman.stdout.trim().split("\n")).toHaveLength(3); // the two failures and the summary

    // An unreachable chain is "unknown" (exit 3), not a failure.
    const unknown = await svc(owner, [
      "verify",
      "--bundle",
      exportFile,
      "--rpc",
      "http://127.0.0.1:1",
      "--json",
    ]);
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ verified: false, unknown: ids.length });

    // logout removes the credentials file.
    const logout = await svcJson<{ loggedOut: boolean }>(owner, ["logout"]);
    expect(logout.loggedOut).toBe(true);
    await expect(stat(join(owner.config, "svc", "credentials.json"))).rejects.toThrow();
  });
});
