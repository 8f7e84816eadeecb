/**
 * The memory commands: `remember`, `recall`, `get`, `update`, `history`, `forget`, `prove`,
 * `log` — each one SDK call (docs/protocol.md §4, §6).
 * @module
 */
import type { Metadata, RecallOptions } from "@verifiable-memory/client";
import type { Command } from "commander";
import { usageError } from "../errors.js";
import { indent, memoryHeader, memoryText, proofSummary } from "../format.js";
import { collect, parseInteger, parseMeta, readText } from "../parse.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { authedClient } from "../session.js";

interface WriteOptions {
  readonly file?: string;
  readonly meta?: string[];
  readonly namespace?: string;
}

interface RecallCommandOptions {
  readonly meta?: string[];
  readonly namespace?: string;
  readonly prefix?: string;
  readonly relevance?: boolean;
  readonly limit?: string;
  readonly caseSensitive?: boolean;
  readonly includeSuperseded?: boolean;
  readonly cursor?: string;
}

/**
 * The content of `remember` / `update`: the text argument, or the file of `--file` (`-`: stdin).
 * @throws CliError usage when both or neither are given.
 */
async function contentOf(text: string | undefined, file: string | undefined): Promise<string> {
  if (text !== undefined && file !== undefined) {
    throw usageError("give the text or --file, not both");
  }
  if (file !== undefined) {
    return readText(file, "the content file");
  }
  if (text === undefined) {
    throw usageError("give the text to remember, or --file <path>");
  }
  return text;
}

/** Registers the memory commands on `program`. */
export function registerMemoryCommands(program: Command, rt: Runtime): void {
  program
    .command("remember")
    .description("Store a memory (POST /memories)")
    .argument("[text]", "the memory's content")
    .option("-f, --file <path>", "read the content from a file ('-': stdin)")
    .option("-m, --meta <key=value>", "metadata; repeatable; values parsed as JSON", collect)
    .option("-n, --namespace <ns>", "namespace, e.g. agent:research/run:42")
    .action(async (text: string | undefined, _options: WriteOptions, command: Command) => {
      const options = optionsOf<WriteOptions>(command);
      const out = outputOf(rt, options);
      const content = await contentOf(text, options.file);
      const metadata = parseMeta(options.meta) as Metadata | undefined;
      const client = await authedClient(rt, options);
      const created = await client.remember(
        content,
        metadata,
        options.namespace === undefined ? {} : { namespace: options.namespace },
      );
      await out.result(created, () => memoryHeader(created));
    });

  program
    .command("recall")
    .description(
      "Find memories (POST /memories/search): substring (newest first) or --relevance (BM25); without a query or filter, list the newest",
    )
    .argument("[query]", "text to find")
    .option("-m, --meta <key=value>", "metadata filter; repeatable; values parsed as JSON", collect)
    .option("-n, --namespace <ns>", "only this namespace")
    .option("-p, --prefix <prefix>", "only namespaces starting with this")
    .option("-r, --relevance", "rank by relevance (BM25) instead of recency")
    .option("-l, --limit <n>", "at most this many (1–200, default 20)")
    .option("--case-sensitive", "case-sensitive substring match")
    .option("--include-superseded", "include superseded versions")
    .option("--cursor <cursor>", "the next page of a previous recall (its nextCursor)")
    .action(async (query: string | undefined, _options: object, command: Command) => {
      const options = optionsOf<RecallCommandOptions>(command);
      const out = outputOf(rt, options);
      const limit =
        options.limit === undefined ? undefined : parseInteger(options.limit, "--limit", 1, 200);
      const metadata = parseMeta(options.meta);
      const client = await authedClient(rt, options);
      const filtered =
        query !== undefined ||
        metadata !== undefined ||
        options.namespace !== undefined ||
        options.prefix !== undefined;
      if (!filtered) {
        if (options.relevance) {
          throw usageError("--relevance needs a query");
        }
        const page = await client.list({
          ...(limit === undefined ? {} : { limit }),
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
          ...(options.includeSuperseded ? { includeSuperseded: true } : {}),
        });
        await out.result(page, () => [
          ...page.items.map(memoryText),
          ...(page.items.length === 0 ? ["No memories."] : []),
          ...(page.nextCursor ? [`(more: --cursor ${page.nextCursor})`] : []),
        ]);
        return;
      }
      const recallOptions = {
        ...(limit === undefined ? {} : { limit }),
        ...(metadata === undefined ? {} : { metadata }),
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        ...(options.prefix === undefined ? {} : { namespacePrefix: options.prefix }),
        ...(options.relevance ? { rank: "relevance" } : {}),
        ...(options.caseSensitive ? { caseSensitive: true } : {}),
        ...(options.includeSuperseded ? { includeSuperseded: true } : {}),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      } as RecallOptions;
      const result = await client.recall(query, recallOptions);
      await out.result(result, () => [
        ...result.items.map(memoryText),
        `${result.items.length} found (${result.scanned} scanned)${
          result.nextCursor ? `; more: --cursor ${result.nextCursor}` : ""
        }`,
      ]);
    });

  program
    .command("get")
    .description("Show one memory (GET /memories/:id)")
    .argument("<id>", "memory id")
    .action(async (id: string, _options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const memory = await (await authedClient(rt, options)).get(id);
      await out.result(memory, () => memoryText(memory));
    });

  program
    .command("update")
    .description("Write a new version of a memory (PUT /memories/:id); the old one stays provable")
    .argument("<id>", "the memory to supersede")
    .argument("[text]", "the new content")
    .option("-f, --file <path>", "read the content from a file ('-': stdin)")
    .option("-m, --meta <key=value>", "metadata of the new version; repeatable", collect)
    .option("-n, --namespace <ns>", "namespace of the new version (default: the old one's)")
    .action(
      async (id: string, text: string | undefined, _options: WriteOptions, command: Command) => {
        const options = optionsOf<WriteOptions>(command);
        const out = outputOf(rt, options);
        const content = await contentOf(text, options.file);
        const metadata = parseMeta(options.meta) as Metadata | undefined;
        const client = await authedClient(rt, options);
        const created = await client.update(
          id,
          content,
          metadata,
          options.namespace === undefined ? {} : { namespace: options.namespace },
        );
        await out.result(created, () => memoryHeader(created));
      },
    );

  program
    .command("history")
    .description("Every live version of a memory, oldest first (GET /memories/:id/history)")
    .argument("<id>", "any version's id")
    .action(async (id: string, _options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const items = await (await authedClient(rt, options)).history(id);
      await out.result({ items }, () => items.map(memoryText));
    });

  program
    .command("forget")
    .description(
      "Delete a memory's content (DELETE /memories/:id); its leaf stays in the log, so the deletion is visible",
    )
    .argument("<id>", "memory id")
    .action(async (id: string, _options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      await (await authedClient(rt, options)).forget(id);
      await out.result({ id, forgotten: true }, () => `Forgot ${id}.`);
    });

  program
    .command("prove")
    .description(
      "Print a memory's proof bundle (GET /memories/:id/proof), for `svc verify --bundle` or svc-verify",
    )
    .argument("<id>", "memory id")
    .option("-s, --summary", "print a summary instead of the bundle (without --json)")
    .action(async (id: string, _options: object, command: Command) => {
      const options = optionsOf<{ summary?: boolean }>(command);
      const out = outputOf(rt, options);
      const bundle = await (await authedClient(rt, options)).prove(id);
      if (!bundle.anchored) {
        out.note(
          "note: not anchored yet; the bundle verifies once the next anchoring covers this memory",
        );
      }
      await out.result(bundle, () =>
        options.summary ? proofSummary(bundle) : JSON.stringify(bundle, null, 2),
      );
    });

  program
    .command("log")
    .description("The Merkle log's head and its latest anchored checkpoint (GET /log)")
    .action(async (_options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const head = await (await authedClient(rt, options)).log.get();
      await out.result(head, () => [
        `tree size  ${head.treeSize}`,
        `root       ${head.rootHash}`,
        head.anchored
          ? `anchored   size ${head.anchored.treeSize}, root ${head.anchored.rootHash}\n${indent(
              `nonce ${head.anchored.nonce}, tx ${head.anchored.signature}`,
              11,
            )}`
          : "anchored   not yet",
      ]);
    });
}
