/**
 * `svc import` (JSON Lines in, through the SDK's `rememberMany`) and `svc export` (every memory
 * with its proof bundle out, one `{ memory, proof }` per line, so the file can be checked later
 * with `svc verify --bundle` against the chain alone).
 * @module
 */
import { open } from "node:fs/promises";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import {
  BATCH_MAX_ITEMS,
  type BatchItem,
  type CreatedMemory,
  type Memory,
  type ProofBundle,
  SvcError,
} from "@verifiable-memory/client";
import type { Command } from "commander";
import { CliError, exitCodeOf, reportOf, usageError } from "../errors.js";
import { writeTo } from "../output.js";
import { parseInteger, readText } from "../parse.js";
import { orderedPool } from "../pool.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { authedClient } from "../session.js";

/** How many proofs `export` fetches at a time. */
const EXPORT_CONCURRENCY = 8;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One line of an import file, ready for the batch. */
interface ImportItem {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly item: BatchItem;
}

/**
 * Parses an import file: one JSON object per non-blank line, `{ content, metadata?, namespace? }`,
 * or an `svc export` line `{ memory: { content, metadata, namespace }, proof }` (so an export can
 * be imported into another account). `namespace` defaults to `defaultNamespace`.
 * @throws CliError usage naming the first bad line; nothing is stored then.
 */
export function parseImport(text: string, defaultNamespace: string | undefined): ImportItem[] {
  const items: ImportItem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (raw.trim() === "") {
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw usageError(`line ${line}: not JSON (${(error as Error).message})`);
    }
    const source = isObject(value) && isObject(value.memory) ? value.memory : value;
    if (!isObject(source)) {
      throw usageError(`line ${line}: expected an object { content, metadata?, namespace? }`);
    }
    if (typeof source.content !== "string" || source.content === "") {
      throw usageError(`line ${line}: "content" must be a non-empty string`);
    }
    if (source.metadata !== undefined && source.metadata !== null && !isObject(source.metadata)) {
      throw usageError(`line ${line}: "metadata" must be an object`);
    }
    if (
      source.namespace !== undefined &&
      source.namespace !== null &&
      typeof source.namespace !== "string"
    ) {
      throw usageError(`line ${line}: "namespace" must be a string`);
    }
    const namespace = (source.namespace as string | null | undefined) ?? defaultNamespace;
    const metadata = source.metadata as Json | null | undefined;
    items.push({
      line,
      item: {
        content: source.content,
        ...(metadata ? { metadata } : {}),
        ...(namespace ? { namespace } : {}),
      } as BatchItem,
    });
  }
  return items;
}

/** Rewrites `["items", i, …]` detail paths of a failed chunk to name the file's line. */
function detailsWithLines(details: unknown, lineOf: (i: number) => number | undefined): unknown {
  if (!Array.isArray(details)) {
    return details;
  }
  return details.map((detail) => {
    if (!isObject(detail) || !Array.isArray(detail.path) || detail.path[0] !== "items") {
      return detail;
    }
    const line = typeof detail.path[1] === "number" ? lineOf(detail.path[1]) : undefined;
    return line === undefined
      ? detail
      : { ...detail, path: [`line ${line}`, ...detail.path.slice(2)] };
  });
}

interface ImportOptions {
  readonly namespace?: string;
  readonly chunkSize?: string;
}

interface ExportOptions {
  readonly output?: string;
  readonly namespace?: string;
  readonly prefix?: string;
  readonly currentOnly?: boolean;
}

/** Registers `import` and `export` on `program`. */
export function registerTransferCommands(program: Command, rt: Runtime): void {
  program
    .command("import")
    .description(
      "Store the memories of a JSON Lines file, one { content, metadata?, namespace? } per line (POST /memories/batch)",
    )
    .argument("<file>", "the .jsonl file ('-': stdin); svc export files are accepted too")
    .option("-n, --namespace <ns>", "namespace for lines that name none")
    .option("--chunk-size <n>", `memories per request (1–${BATCH_MAX_ITEMS})`)
    .addHelpText(
      "after",
      "\nThe file is checked first: a malformed line stores nothing. Each request stores its chunk\nall or nothing; when one fails, the error says how many memories were stored before it.",
    )
    .action(async (file: string, _options: ImportOptions, command: Command) => {
      const options = optionsOf<ImportOptions>(command);
      const out = outputOf(rt, options);
      const chunkSize =
        options.chunkSize === undefined
          ? BATCH_MAX_ITEMS
          : parseInteger(options.chunkSize, "--chunk-size", 1, BATCH_MAX_ITEMS);
      const items = parseImport(await readText(file, "the import file"), options.namespace);
      const client = await authedClient(rt, options);
      const stored: CreatedMemory[] = [];
      const bar = out.progress(items.length, "importing");
      try {
        for (let start = 0; start < items.length; start += chunkSize) {
          const slice = items.slice(start, start + chunkSize);
          try {
            stored.push(
              ...(await client.rememberMany(
                slice.map((i) => i.item),
                { chunkSize },
              )),
            );
          } catch (error) {
            if (!(error instanceof SvcError)) {
              throw error;
            }
            const offset = start + (error.batch?.offset ?? 0);
            stored.push(...(error.batch?.stored ?? []));
            const report = reportOf(error);
            const line = items[offset]?.line ?? "?";
            throw new CliError({
              code: report.code,
              message: `stored ${stored.length} of ${items.length} memories, then the request starting at line ${line} was refused: ${report.message}${
                error.requestId ? ` (request id ${error.requestId})` : ""
              }`,
              exitCode: exitCodeOf(error),
              details: detailsWithLines(error.details, (i) => items[offset + i]?.line),
              cause: error,
            });
          }
          bar.increment(slice.length);
        }
      } finally {
        bar.stop();
      }
      const first = stored[0];
      const last = stored.at(-1);
      await out.result(
        {
          imported: stored.length,
          items: stored.map((memory, i) => ({
            line: items[i]?.line,
            id: memory.id,
            leafIndex: memory.leafIndex,
          })),
        },
        () =>
          first && last
            ? `Imported ${stored.length} memories (leaves ${first.leafIndex}–${last.leafIndex}).`
            : "Nothing to import.",
      );
    });

  program
    .command("export")
    .description(
      "Write every memory with its proof bundle, one { memory, proof } per line (JSON Lines), oldest first",
    )
    .option("-o, --output <file>", "write to this file instead of stdout (mode 0600)")
    .option("-n, --namespace <ns>", "only this namespace")
    .option("-p, --prefix <prefix>", "only namespaces starting with this")
    .option("--current-only", "leave superseded versions out")
    .addHelpText(
      "after",
      "\nCheck the file later, without the API: svc verify --bundle <file> --rpc <url>.\nMemories not anchored yet are exported with anchored: false and do not verify until re-exported.",
    )
    .action(async (_options: ExportOptions, command: Command) => {
      const options = optionsOf<ExportOptions>(command);
      const out = outputOf(rt, options);
      const client = await authedClient(rt, options);
      const memories: Memory[] = [];
      for await (const memory of client.listAll({
        limit: 200,
        includeSuperseded: options.currentOnly !== true,
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        ...(options.prefix === undefined ? {} : { namespacePrefix: options.prefix }),
      })) {
        memories.push(memory);
      }
      memories.reverse();

      let sink: Writable = out.stdout;
      if (options.output !== undefined) {
        try {
          sink = (await open(options.output, "w", 0o600)).createWriteStream();
        } catch (error) {
          throw usageError(`cannot write ${options.output}: ${(error as Error).message}`);
        }
      }
      let anchored = 0;
      let exported = 0;
      const bar = out.progress(memories.length, "exporting");
      try {
        await orderedPool(
          memories,
          EXPORT_CONCURRENCY,
          async (memory): Promise<ProofBundle | null> => {
            try {
              return await client.prove(memory.id);
            } catch (error) {
              // Deleted since it was listed: nothing left to export.
              if (error instanceof SvcError && error.status === 404) {
                return null;
              }
              throw error;
            }
          },
          async (proof, index) => {
            bar.increment();
            if (proof === null) {
              return;
            }
            exported += 1;
            if (proof.anchored) {
              anchored += 1;
            }
            await writeTo(sink, `${JSON.stringify({ memory: memories[index], proof })}\n`);
          },
        );
      } finally {
        bar.stop();
        if (sink !== out.stdout) {
          sink.end();
          await finished(sink);
        }
      }
      const pending = exported - anchored;
      if (pending > 0) {
        out.note(
          `note: ${pending} of ${exported} memories are not anchored yet; their lines verify only once re-exported after anchoring`,
        );
      }
      if (options.output !== undefined) {
        await out.result(
          { exported, anchored, pending, file: options.output },
          () => `Exported ${exported} memories to ${options.output}.`,
        );
      } else {
        out.note(`Exported ${exported} memories.`);
      }
    });
}
