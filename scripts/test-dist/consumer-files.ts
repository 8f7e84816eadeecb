/**
 * What `pnpm test:dist` writes into the scratch folder beside the installed tarballs: programs a
 * user would write, run there with plain `node` (no tsx), and a TypeScript consumer type-checked
 * against the shipped declarations.
 * @module
 */

/**
 * The SDK as an agent uses it: signs in with a keypair (a 64-byte Solana secret key, hex in
 * argv[4]), remembers, recalls, waits until the memory is anchored and verifies its proof against
 * the chain (argv[3]); prints one JSON line.
 */
export const SDK_PROGRAM = `import { createClient } from "@verifiable-memory/client";
import { verify } from "@verifiable-memory/client/verify";

const [apiUrl, rpcUrl, secretHex] = process.argv.slice(2);
const client = createClient({ baseUrl: apiUrl });
const session = await client.signInWithKeypair(Uint8Array.from(Buffer.from(secretHex, "hex")));
const memory = await client.remember("The tarball check remembers parcels.", { topic: "dist" });
const recalled = await client.recall("parcels");
const deadline = Date.now() + 60_000;
let outcome = await verify(client, memory.id, { rpcUrl });
while (!outcome.ok && outcome.reason === "not_anchored" && Date.now() < deadline) {
  await new Promise((done) => setTimeout(done, 250));
  outcome = await verify(client, memory.id, { rpcUrl });
}
console.log(JSON.stringify({
  publicKey: session.publicKey,
  token: session.token,
  id: memory.id,
  recalled: recalled.items.map((item) => item.id),
  ok: outcome.ok,
  reason: outcome.reason ?? null,
}));
`;

/**
 * An MCP host: the MCP SDK's own Client spawns \`svc-mcp\` (argv[2]) over stdio with the session
 * token, lists the tools, remembers and recalls; prints one JSON line.
 */
export const MCP_PROGRAM = `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, apiUrl, token, rpcUrl] = process.argv.slice(2);
const client = new Client({ name: "dist-check", version: "1.0.0" });
await client.connect(new StdioClientTransport({
  command: bin,
  env: { ...getDefaultEnvironment(), SVC_URL: apiUrl, SVC_TOKEN: token, SVC_RPC_URL: rpcUrl },
  stderr: "inherit",
}));
const text = (result) => JSON.parse(result.content[0].text);
const { tools } = await client.listTools();
const stored = text(await client.callTool({ name: "remember", arguments: { content: "MCP over stdio from a tarball." } }));
const recalled = text(await client.callTool({ name: "recall", arguments: { query: "tarball" } }));
await client.close();
console.log(JSON.stringify({
  server: client.getServerVersion()?.name,
  tools: tools.map((tool) => tool.name).sort(),
  id: stored.id,
  recalled: recalled.items.map((item) => item.id),
}));
`;

/** A TypeScript consumer of every public package's declarations. */
export const CONSUMER_TS = `import { createClient, type SvcClient, SvcError } from "@verifiable-memory/client";
import { verify } from "@verifiable-memory/client/verify";
import { verifyBundle, type VerifyResult } from "@verifiable-memory/verifier";
import { createMemoryMcpServer } from "@verifiable-memory/mcp";
import * as siws from "@verifiable-memory/siws-message";
import * as merkle from "@verifiable-memory/merkle-log";
import * as account from "@verifiable-memory/commitment-account";
import * as schemas from "@verifiable-memory/memory-schemas";
import * as cli from "@verifiable-memory/cli";

const client: SvcClient = createClient({ baseUrl: "http://localhost:8787" });
export async function check(id: string): Promise<boolean> {
  try {
    await client.remember("typed", { topic: "dist" }, { namespace: "agent:dist" });
    const hits = await client.recall("typed", { rank: "relevance", limit: 5 });
    const first: string | undefined = hits.items[0]?.id;
    const outcome = await verify(client, first ?? id, { rpcUrl: "http://127.0.0.1:8899" });
    const result: VerifyResult = await verifyBundle({}, { rpcUrl: "http://127.0.0.1:8899" });
    return outcome.ok && result.verified;
  } catch (error) {
    if (error instanceof SvcError) {
      const code: string = error.code;
      return code.length > 0;
    }
    throw error;
  }
}
export const used = [createMemoryMcpServer, siws, merkle, account, schemas, cli] as const;
`;

/** tsconfig of the consumer for `moduleResolution` (\`nodenext\` or \`bundler\`). */
export function consumerTsconfig(resolution: "nodenext" | "bundler"): string {
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        module: resolution === "nodenext" ? "NodeNext" : "ESNext",
        moduleResolution: resolution === "nodenext" ? "NodeNext" : "Bundler",
        types: ["node"],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
      },
      files: ["consumer.ts"],
    },
    null,
    2,
  )}\n`;
}
