/**
 * `svc share <id…>`: a capability grant that lets whoever holds its URL read these memories (with
 * their proofs) a limited number of times before it expires (docs/protocol.md §8).
 * @module
 */
import type { Command } from "commander";
import { usageError } from "../errors.js";
import { parseExpiry, parseInteger } from "../parse.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { authedClient } from "../session.js";

/** The grant lifetimes the API accepts, seconds (docs/protocol.md §8.1). */
const MIN_EXPIRY_S = 60;
const MAX_EXPIRY_S = 2_592_000;
/** The most memories one grant names. */
const MAX_IDS = 100;

interface ShareOptions {
  readonly uses: string;
  readonly expires: string;
  readonly label?: string;
}

/** Registers `share` on `program`. */
export function registerShareCommand(program: Command, rt: Runtime): void {
  program
    .command("share")
    .description(
      "Share memories through a capability URL (a read_memories grant, POST /agent-cases); prints the URL",
    )
    .argument("<id...>", "the memories to share (1–100)")
    .option("-u, --uses <n>", "how many times the URL can be used (1–1000)", "1")
    .option("-e, --expires <when>", "lifetime: 1m to 30d (e.g. 1h, 7d) or an ISO 8601 time", "1d")
    .option("--label <label>", "a name for the grant")
    .action(async (ids: string[], _options: ShareOptions, command: Command) => {
      const options = optionsOf<ShareOptions>(command);
      const out = outputOf(rt, options);
      const unique = [...new Set(ids)];
      if (unique.length > MAX_IDS) {
        throw usageError(`a grant names at most ${MAX_IDS} memories`);
      }
      const maxUses = parseInteger(options.uses, "--uses", 1, 1000);
      const now = rt.now();
      const expiresInSeconds = Math.round(
        (parseExpiry(options.expires, "--expires", now).getTime() - now.getTime()) / 1000,
      );
      if (expiresInSeconds < MIN_EXPIRY_S || expiresInSeconds > MAX_EXPIRY_S) {
        throw usageError("--expires must lie between 1 minute and 30 days from now");
      }
      const grant = await (await authedClient(rt, options)).grants.create({
        operation: { type: "read_memories", memoryIds: unique },
        expiresInSeconds,
        maxUses,
        ...(options.label === undefined ? {} : { label: options.label }),
      });
      out.note(
        `Grant ${grant.id}: ${grant.maxUses} use(s), expires ${grant.expiresAt}. Anyone with the URL can read ${unique.length} memor${unique.length === 1 ? "y" : "ies"}.`,
      );
      await out.result(grant, () => grant.url);
    });
}
