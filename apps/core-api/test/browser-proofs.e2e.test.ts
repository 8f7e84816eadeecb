/**
 * The pure packages in a browser (siws-message, merkle-log and the verifier's proof check with
 * no Node built-in): `test/browser/proof-page.ts` is bundled by esbuild for the browser
 * platform, so the packages' `"browser"` conditions apply (the verifier hashes with
 * @noble/hashes, not node:crypto), and loaded in headless Chromium (Debian's /usr/bin/chromium
 * driven by playwright-core) from a page on another origin than the service. In the page: a
 * sign-in message is built and parsed, and the service's challenge parsed and rebuilt; a proof
 * bundle fetched from core-api (real PostgreSQL) is verified against the commitment account read
 * from the local chain (the real program in litesvm) in the page, a tampered one is refused, and
 * after more anchors the old bundle is stale until the service's consistency proof bridges it,
 * which the page also checks by itself between the bundle's root and the on-chain root. The
 * checkpoint-log path runs in the page too: the service's anchored checkpoint of a user, signed as
 * a C2SP user checkpoint with a test log key, logged in a checkpoint log whose root the authority
 * commits to its checkpoint log account, verifies with the key pinned and is refused without it.
 * @module
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import {
  CompactRange,
  fromHex,
  hashLeaf,
  inclusionProof,
  MemoryNodeStore,
  toHex,
} from "@verifiable-memory/merkle-log";
import {
  formatCheckpoint,
  generateSigner,
  signNote,
  userLogOrigin,
} from "@verifiable-memory/signed-note";
import { build } from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProofPage } from "./browser/proof-page.js";
import { call, newUser, recordCheckpoint, startTestApp, type TestApp } from "./helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) {
  throw new Error(
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
  );
}
if (!haveChromium) {
  console.warn(
    `\n  !! ${CHROMIUM} is missing: the browser proof test is SKIPPED. apt-get install -y chromium\n`,
  );
}

const ENTRY = fileURLToPath(new URL("./browser/proof-page.ts", import.meta.url));

let t: TestApp;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let client: ChainClient;
let authority: Keypair;
let browser: Browser;
let pageServer: Server;
let pageUrl: string;
let bundleInputs: string[];

/**
 * Serves the page (`/`), its bundle (`/bundle.js`) and, at `/rpc`, the local chain's JSON-RPC
 * (the page reads the chain from its own origin: the local chain sends no CORS headers).
 */
function servePage(bundle: string, rpcUrl: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/bundle.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    } else if (req.url === "/rpc" && req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        fetch(rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: Buffer.concat(chunks),
        }).then(
          async (answer) =>
            res
              .writeHead(answer.status, { "content-type": "application/json" })
              .end(await answer.text()),
          () => res.writeHead(502).end(),
        );
      });
    } else if (req.url === "/") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          '<!doctype html><title>proofs</title><link rel="icon" href="data:,"><script type="module" src="/bundle.js"></script>',
        );
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  if (!haveChromium) {
    return;
  }
  const bundled = await build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  bundleInputs = Object.keys(bundled.metafile.inputs);
  chainDir = await mkdtemp(join(tmpdir(), "core-api-browser-proofs-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
  client = new ChainClient({
    rpcUrl: chain.url,
    programId: LOCAL_PROGRAM_ID,
    authority,
    confirmTimeoutMs: 20_000,
  });
  t = await startTestApp({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
  pageServer = await servePage(bundled.outputFiles[0]?.text ?? "", chain.url);
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) =>
    pageServer ? pageServer.close(() => resolve()) : resolve(),
  );
  await t?.close();
  await chain?.close();
  if (chainDir) {
    await rm(chainDir, { recursive: true, force: true });
  }
});

/** A fresh page with the bundle loaded; page errors and console errors are collected. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") {
      errors.push(message.text());
    }
  });
  await page.goto(pageUrl);
  await page.waitForFunction(() => "proofPage" in globalThis);
  return { page, errors };
}

/** Anchors `userId`'s whole log on the local chain and records the checkpoint. */
async function anchor(
  user: { userId: string; wallet: { publicKey: string } },
  size: number,
  nonce: number,
) {
  const root = await rootAtSize(t.db, user.userId, size);
  const committed = await client.commit(user.wallet.publicKey, root, size, nonce);
  await recordCheckpoint(t, user, size, committed.nonce, committed.signature);
}

describe.skipIf(!haveChromium)("the pure packages in Chromium", () => {
  it("bundle for the browser with no Node built-in: the verifier hashes with @noble/hashes", () => {
    expect(bundleInputs.filter((input) => input.startsWith("node:"))).toEqual([]);
    const verifierFiles = bundleInputs
      .filter((input) => input.includes("packages/verifier/src/"))
      .map((input) => input.slice(input.indexOf("packages/verifier/src/")));
    expect(verifierFiles).toContain("packages/verifier/src/sha256.browser.ts");
    expect(verifierFiles).toContain("packages/verifier/src/browser.ts");
    expect(verifierFiles).not.toContain("packages/verifier/src/sha256.ts");
    expect(verifierFiles).not.toContain("packages/verifier/src/cli.ts");
    expect(bundleInputs.filter((input) => input.includes("@solana/web3.js"))).toEqual([]);
  });

  it("builds and parses sign-in messages, the service's challenge included", async () => {
    const { page, errors } = await openPage();
    const user = await newUser(t.url);
    const fields = {
      domain: "console.example.com",
      address: user.wallet.publicKey,
      statement: "Sign in to Verifiable Memory - verifiable memory for AI agents.",
      uri: "https://console.example.com",
      version: "1" as const,
      chainId: "localnet",
      nonce: "8DfbjXLth7APvt3qQPgtf",
      issuedAt: "2026-11-22T10:00:00.000Z",
      expirationTime: "2026-11-22T10:05:00.000Z",
    };
    const round = await page.evaluate((f) => globalThis.proofPage.roundTrip(f), fields);
    expect(round.parsed).toEqual(fields);
    expect(round.text.split("\n")).toHaveLength(11);
    expect(round.text.startsWith("console.example.com wants you to sign in")).toBe(true);

    const challenge = await page.evaluate(
      ([api, key]) => globalThis.proofPage.challenge(api, key),
      [t.url, user.wallet.publicKey] as const,
    );
    expect(challenge.rebuiltIdentical).toBe(true);
    expect(challenge.fields).toMatchObject({
      domain: t.config.siws.domain,
      address: user.wallet.publicKey,
      chainId: "localnet",
    });
    const refused = await page.evaluate(() => {
      try {
        globalThis.proofPage.roundTrip({
          domain: "bad domain",
          address: "x",
        } as unknown as Parameters<typeof globalThis.proofPage.roundTrip>[0]);
        return "accepted";
      } catch (error) {
        return (error as Error).name;
      }
    });
    expect(refused).toBe("SignInMessageFieldError");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("verifies an inclusion proof against the chain, refuses a tampered one, and bridges an old bundle with a consistency proof", async () => {
    const { page, errors } = await openPage();
    const user = await newUser(t.url);
    const ids: string[] = [];
    for (const content of ["first", "the one we prove", "third"]) {
      const written = await call<{ id: string }>(`${t.url}/memories`, {
        headers: user.headers,
        body: { content, metadata: { n: ids.length } },
      });
      ids.push(written.body.id);
    }
    await anchor(user, 3, 0);
    const rpcUrl = `${pageUrl}/rpc`;
    const id = ids[1] as string;
    const bundle = await page.evaluate(
      ([api, token, memory]) => globalThis.proofPage.bundle(api, token, memory),
      [t.url, user.token, id] as const,
    );
    expect(bundle).toMatchObject({ memoryId: id, anchored: true, checkpoint: { treeSize: 3 } });

    const fresh = await page.evaluate(
      ([b, rpc]) => globalThis.proofPage.verify(b, { rpcUrl: rpc, content: "the one we prove" }),
      [bundle, rpcUrl] as const,
    );
    expect(fresh).toMatchObject({ verified: true, reason: null, contentChecked: true });
    expect(fresh.checks.map((c) => `${c.check} ${c.passed}`)).toEqual([
      "bundle true",
      "anchored true",
      "leaf true",
      "content true",
      "account true",
      "chain true",
      "checkpoint true",
      "inclusion true",
    ]);
    expect(fresh.onChain).toMatchObject({ memoryCount: 3, owner: user.wallet.publicKey });

    const tampered = structuredClone(bundle) as { inclusionProof: string[] };
    const node = tampered.inclusionProof[0] as string;
    tampered.inclusionProof[0] = `${node[0] === "0" ? "1" : "0"}${node.slice(1)}`;
    const refused = await page.evaluate(
      ([b, rpc]) => globalThis.proofPage.verify(b, { rpcUrl: rpc }),
      [tampered, rpcUrl] as const,
    );
    expect(refused).toMatchObject({ verified: false, reason: "proof_invalid" });
    const wrongContent = await page.evaluate(
      ([b, rpc]) => globalThis.proofPage.verify(b, { rpcUrl: rpc, content: "edited" }),
      [bundle, rpcUrl] as const,
    );
    expect(wrongContent).toMatchObject({ verified: false, reason: "content_mismatch" });

    for (const content of ["fourth", "fifth"]) {
      await call(`${t.url}/memories`, { headers: user.headers, body: { content } });
    }
    await anchor(user, 5, 1);
    const stale = await page.evaluate(
      ([b, rpc]) => globalThis.proofPage.verify(b, { rpcUrl: rpc }),
      [bundle, rpcUrl] as const,
    );
    expect(stale).toMatchObject({ verified: false, reason: "stale_checkpoint" });
    const bridged = await page.evaluate(
      ([b, rpc, api]) => globalThis.proofPage.verify(b, { rpcUrl: rpc, apiUrl: api }),
      [bundle, rpcUrl, t.url] as const,
    );
    expect(bridged).toMatchObject({ verified: true, bridged: { from: 3, to: 5 } });
    expect(bridged.checks.at(-1)).toMatchObject({ check: "consistency", passed: true });

    const consistency = await page.evaluate(
      ([api, token, rpc, b]) =>
        globalThis.proofPage.consistency(
          api,
          token,
          rpc,
          b as Parameters<typeof globalThis.proofPage.consistency>[3],
        ),
      [t.url, user.token, rpcUrl, bundle] as const,
    );
    expect(consistency).toEqual({ from: 3, to: 5, nodes: 4, verified: true, problem: "" });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!haveChromium)("the checkpoint-log path in Chromium", () => {
  it("verifies a memory through a signed user checkpoint logged in the anchored checkpoint log; refuses it without the key", async () => {
    const { page, errors } = await openPage();
    const user = await newUser(t.url);
    const ids: string[] = [];
    for (const content of ["one", "two, proven through the checkpoint log", "three"]) {
      const written = await call<{ id: string }>(`${t.url}/memories`, {
        headers: user.headers,
        body: { content },
      });
      ids.push(written.body.id);
    }
    await anchor(user, 3, 0);
    const served = (await page.evaluate(
      ([api, token, memory]) => globalThis.proofPage.bundle(api, token, memory),
      [t.url, user.token, ids[1] as string] as const,
    )) as {
      checkpoint: { treeSize: number; rootHash: string };
      inclusionProof: string[];
      anchor: { programId: string; cluster: string };
    };
    // The service's anchored checkpoint of the user as a signed user checkpoint (§13.3), the one
    // entry after another's in a checkpoint log anchored by the authority (§13.5).
    const key = generateSigner("browser.example/tlog");
    const entry = formatCheckpoint({
      origin: userLogOrigin(key.name, user.wallet.publicKey),
      size: served.checkpoint.treeSize,
      rootHash: fromHex(served.checkpoint.rootHash),
      extensions: [],
    });
    const log = CompactRange.empty();
    const store = new MemoryNodeStore();
    for (const text of [
      "browser.example/tlog/users/other\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
      entry,
    ]) {
      store.put(log.append(hashLeaf(new TextEncoder().encode(text))));
    }
    const committed = await client.commitCheckpointLog(log.root(), log.size, 0);
    const bundle = {
      ...served,
      anchored: true,
      checkpoint: null,
      inclusionProof: null,
      anchor: null,
      checkpointLog: {
        entry,
        userCheckpoint: signNote(entry, [key]),
        userInclusionProof: served.inclusionProof,
        leafIndex: 1,
        treeSize: 2,
        rootHash: toHex(log.root()),
        inclusionProof: (await inclusionProof(1, 2, store)).map((node) => toHex(node)),
        anchor: {
          cluster: served.anchor.cluster,
          programId: served.anchor.programId,
          account: (await client.readCheckpointLog())?.address ?? "",
          size: 2,
          nonce: committed.nonce,
          signature: committed.signature,
          slot: null,
        },
      },
    };
    const rpcUrl = `${pageUrl}/rpc`;
    const verified = await page.evaluate(
      ([b, rpc, vkey]) =>
        globalThis.proofPage.verify(b, {
          rpcUrl: rpc,
          content: "two, proven through the checkpoint log",
          logKeys: [vkey],
        }),
      [bundle, rpcUrl, key.vkey] as const,
    );
    expect(verified).toMatchObject({
      verified: true,
      path: "checkpoint_log",
      logKey: key.vkey,
      contentChecked: true,
      checkpointLog: { size: 2, authority: authority.publicKey.toBase58() },
    });
    expect(verified.checks.map((c) => c.check)).toEqual([
      "bundle",
      "anchored",
      "leaf",
      "content",
      "log_key",
      "note",
      "entry",
      "inclusion",
      "log_inclusion",
      "chain",
      "log_checkpoint",
    ]);
    const stranger = generateSigner("browser.example/tlog").vkey;
    const refused = await page.evaluate(
      ([b, rpc, vkey]) => globalThis.proofPage.verify(b, { rpcUrl: rpc, logKeys: [vkey] }),
      [bundle, rpcUrl, stranger] as const,
    );
    expect(refused).toMatchObject({ verified: false, reason: "note_signature_invalid" });
    expect(errors).toEqual([]);
    await page.close();
  });
});

declare global {
  /** What browser/proof-page.ts puts on the page's global object. */
  var proofPage: ProofPage;
}
