/**
 * A Vite (Rolldown) plugin that fails the build when the JavaScript a visitor loads first is
 * over budget: the entry chunk and every chunk it imports statically (what the page fetches
 * before it runs), gzip-compressed, at most `maxGzipBytes`. It also fails when any of those
 * chunks holds a module matching `forbidden` (the Solana transaction code must load on demand).
 * It writes the figures to `first-load.json` in the build for the record.
 * @module
 */
import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** What {@link firstLoadBudget} checks. */
export interface BudgetOptions {
  /** Largest total gzip size of the first-loaded JavaScript, bytes. */
  readonly maxGzipBytes: number;
  /** Module ids that must not be in the first-loaded chunks. */
  readonly forbidden: readonly RegExp[];
}

/** One output chunk, as far as the budget needs it. */
export interface BudgetChunk {
  readonly fileName: string;
  readonly code: string;
  readonly isEntry: boolean;
  /** Files of the chunks it imports statically. */
  readonly imports: readonly string[];
  /** Ids of the modules in it. */
  readonly moduleIds: readonly string[];
}

/** The budget's verdict. */
export interface BudgetReport {
  /** The first-loaded chunk files, entry first. */
  readonly files: readonly string[];
  readonly gzipBytes: number;
  readonly maxGzipBytes: number;
  /** `file: module` for each forbidden module found in them. */
  readonly forbiddenFound: readonly string[];
}

/**
 * The first-loaded chunks of `chunks` (entries and their static imports, transitively) and
 * their gzip size.
 */
export function measureFirstLoad(
  chunks: readonly BudgetChunk[],
  options: BudgetOptions,
): BudgetReport {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const files: string[] = [];
  const queue = chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (files.includes(file)) {
      continue;
    }
    files.push(file);
    queue.push(...(byFile.get(file)?.imports ?? []));
  }
  let gzipBytes = 0;
  const forbiddenFound: string[] = [];
  for (const file of files) {
    const chunk = byFile.get(file);
    if (chunk === undefined) {
      continue;
    }
    gzipBytes += gzipSync(chunk.code, { level: 9 }).byteLength;
    for (const id of chunk.moduleIds) {
      if (options.forbidden.some((pattern) => pattern.test(id))) {
        forbiddenFound.push(`${file}: ${id}`);
      }
    }
  }
  return { files, gzipBytes, maxGzipBytes: options.maxGzipBytes, forbiddenFound };
}

/** The plugin (see the module documentation). */
export function firstLoadBudget(options: BudgetOptions): Plugin {
  return {
    name: "first-load-budget",
    apply: "build",
    generateBundle(_output, bundle) {
      const chunks: BudgetChunk[] = [];
      for (const item of Object.values(bundle)) {
        if (item.type === "chunk") {
          chunks.push({
            fileName: item.fileName,
            code: item.code,
            isEntry: item.isEntry,
            imports: item.imports,
            moduleIds: Object.keys(item.modules),
          });
        }
      }
      const report = measureFirstLoad(chunks, options);
      this.emitFile({
        type: "asset",
        fileName: "first-load.json",
        source: `${JSON.stringify(report, null, 2)}\n`,
      });
      const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
      if (report.forbiddenFound.length > 0) {
        this.error(
          `first-loaded JavaScript holds code that must load on demand:\n  ${report.forbiddenFound.join("\n  ")}`,
        );
      }
      if (report.gzipBytes > report.maxGzipBytes) {
        this.error(
          `first-loaded JavaScript is ${kib(report.gzipBytes)} gzipped, over the budget of ${kib(report.maxGzipBytes)} (${report.files.join(", ")})`,
        );
      }
      this.info(
        `first-loaded JavaScript: ${kib(report.gzipBytes)} gzipped of ${kib(report.maxGzipBytes)} (${report.files.length} files)`,
      );
    },
  };
}
