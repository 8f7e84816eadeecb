/**
 * The strict JSON body scan of docs/protocol.md §1.2 "Requests" (`checkStrictJson` of both APIs'
 * body middleware over memory-schemas' `findStrictJsonRefusal`: duplicate keys, exact metadata
 * numbers) plus the validators' `JSON.parse`, beside `JSON.parse` alone on the same
 * text in the same run, on the body the memories bench's batch writes send (64 items of 200
 * characters) and on 64 items with metadata. The scan's cost per memory is what it adds to
 * `POST /memories/batch` (compare with core-api's CPU per write in docs/performance.md).
 * Size: 2 000 bodies per timed run, 9 runs, median reported (a few seconds).
 * @module
 */
import { checkStrictJson } from "@verifiable-memory/http-kit";
import { median, printFigures, timeRuns } from "./lib.js";
import { memoryText } from "./memories/common.js";

const BODIES = 2_000;
const REPS = 9;
const ITEMS = 64;

/** Bodies per second of `op` over `text` (median of REPS runs of BODIES bodies). */
async function bodiesPerSecond(text: string, op: (text: string) => unknown): Promise<number> {
  let sink = 0;
  const runs = await timeRuns(() => {
    for (let i = 0; i < BODIES; i++) {
      sink += op(text) === undefined ? 0 : 1;
    }
  }, REPS);
  if (sink === 0) {
    throw new Error("benchmark produced nothing");
  }
  return BODIES / (median(runs) / 1000);
}

/** Runs the JSON body benchmark and prints its figures. */
export async function run(): Promise<void> {
  const plain = JSON.stringify({
    items: Array.from({ length: ITEMS }, (_, i) => ({ content: memoryText(i + 1) })),
  });
  const withMetadata = JSON.stringify({
    items: Array.from({ length: ITEMS }, (_, i) => ({
      content: memoryText(i + 1),
      metadata: { n: i * 1.5, topic: "home", tags: ["a", "b"], at: { page: i, ratio: 0.25 } },
    })),
  });
  const strict = (text: string) => {
    checkStrictJson(text);
    return JSON.parse(text) as unknown;
  };
  const figures = [];
  for (const [name, text] of [
    [`batch body, ${ITEMS} items of 200 characters (${plain.length} bytes)`, plain],
    [`batch body, ${ITEMS} items with metadata (${withMetadata.length} bytes)`, withMetadata],
  ] as const) {
    figures.push({
      name: `strict scan + JSON.parse, ${name}`,
      value: await bodiesPerSecond(text, strict),
      baseline: await bodiesPerSecond(text, (t) => JSON.parse(t) as unknown),
      unit: "bodies/s",
      baselineName: "JSON.parse alone",
      target: "reported",
    });
  }
  printFigures("strict JSON bodies (docs/protocol.md §1.2)", figures);
}
