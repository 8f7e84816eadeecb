/**
 * The checkpoint log, read-only, per C2SP tlog-tiles under `/tlog/` (docs/protocol.md §13.5 "The
 * checkpoint log", §13.4 "Tiles", §13.6 "Witnesses"): `/tlog/checkpoint` (the latest signed
 * checkpoint with its stored witness cosignatures, `Cache-Control: no-cache`), `/tlog/tile/<L>/<N>[.p/<W>]` (hash tiles) and
 * `/tlog/tile/entries/<N>[.p/<W>]` (entry bundles), immutable once served. No credential; their
 * own per-IP limit (RATE_LIMIT_TLOG_PER_MINUTE), since monitors fetch thousands of tiles and the
 * anonymous limit of the other public routes does not apply.
 * @module
 */

import {
  checkpointLogCosignatureLines,
  checkpointLogEntriesRange,
  checkpointLogNodeSource,
  latestCheckpointLogHead,
} from "@verifiable-memory/db-schema";
import { RateLimits } from "@verifiable-memory/http-kit";
import {
  encodeEntryBundle,
  parseTilePath,
  readTile,
  tileWidthAt,
} from "@verifiable-memory/merkle-log";
import type { Context } from "hono";
import type { App, AppDeps, AppEnv } from "../../context.js";
import { registerGetTlogConsistency } from "./consistency.js";

const IMMUTABLE = "public, max-age=31536000, immutable";

function notFound(c: Context<AppEnv>, message: string): Response {
  return c.json({ error: { code: "not_found", message } }, 404);
}

/**
 * Registers `GET /tlog/checkpoint`, `GET /tlog/tile/*` and `GET /tlog/consistency`, all counted
 * against one per-IP limit.
 */
export function registerTlogRoutes(app: App, deps: AppDeps): void {
  const limits = new RateLimits({
    anonymousPerMinute: deps.config.rateLimits.tlogPerMinute,
    authenticatedPerMinute: 0,
    trustProxy: deps.config.trustProxy,
  });
  const { db } = deps;
  registerGetTlogConsistency(app, deps, limits);

  app.get("/tlog/checkpoint", async (c) => {
    await limits.chargeClientIp(c);
    const head = await latestCheckpointLogHead(db);
    if (!head) {
      return notFound(c, "the checkpoint log is empty");
    }
    // Witness cosignatures of this head follow the log's signature (§13.6 "Witnesses").
    const cosignatures = await checkpointLogCosignatureLines(db, head.treeSize);
    return c.text(head.note + cosignatures.join(""), 200, {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-cache",
    });
  });

  app.get("/tlog/tile/*", async (c) => {
    await limits.chargeClientIp(c);
    const tile = parseTilePath(c.req.path.slice("/tlog/".length));
    if (!tile) {
      return notFound(c, "not a tile path");
    }
    const head = await latestCheckpointLogHead(db);
    // A tile exists once the log holds its W hashes (or entries); its bytes never change after.
    if (!head || tileWidthAt(tile.level, tile.index, head.treeSize) < tile.width) {
      return notFound(c, "the checkpoint log does not hold this tile yet");
    }
    const body =
      tile.level === "entries"
        ? encodeEntryBundle(await checkpointLogEntriesRange(db, tile.index * 256, tile.width))
        : await readTile(checkpointLogNodeSource(db), tile);
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      "content-type": "application/octet-stream",
      "cache-control": IMMUTABLE,
    });
  });
}
