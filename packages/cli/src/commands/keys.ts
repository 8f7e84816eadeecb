/**
 * `svc keys create|list|revoke`: API keys for agents (docs/protocol.md §3.2, §3.5). All three
 * need a wallet session (`svc login --keypair`): an API key gets 403 `session_required`.
 * @module
 */
import type { ApiKey, CreateKeyInput } from "@verifiable-memory/client";
import type { Command } from "commander";
import { usageError } from "../errors.js";
import { collect, parseExpiry } from "../parse.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { authedClient } from "../session.js";

/** The scopes a key may hold (docs/protocol.md §3.5). */
export const SCOPES = [
  "memories:read",
  "memories:write",
  "memories:delete",
  "grants:write",
] as const;

interface CreateOptions {
  readonly label: string;
  readonly scope?: string[];
  readonly namespace?: string;
  readonly expires?: string;
}

/** `active`, `revoked` or `expired`, as of `now`. */
function statusOf(key: ApiKey, now: Date): string {
  if (key.revokedAt) {
    return "revoked";
  }
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) {
    return "expired";
  }
  return "active";
}

/** Registers `keys` and its subcommands on `program`. */
export function registerKeyCommands(program: Command, rt: Runtime): void {
  const keys = program
    .command("keys")
    .description("API keys for agents and scripts (needs a wallet session: svc login --keypair)");

  keys
    .command("create")
    .description("Mint an API key (POST /keys); the key is shown once")
    .requiredOption("--label <label>", "a name for the key (1–100 characters)")
    .option(
      "--scope <scope>",
      `a scope; repeatable (${SCOPES.join(", ")}; default all four)`,
      collect,
    )
    .option("--namespace <prefix>", "confine the key to namespaces starting with this")
    .option("--expires <when>", "expiry: a duration (30m, 12h, 7d) or an ISO 8601 time")
    .action(async (_options: CreateOptions, command: Command) => {
      const options = optionsOf<CreateOptions>(command);
      const out = outputOf(rt, options);
      for (const scope of options.scope ?? []) {
        if (!(SCOPES as readonly string[]).includes(scope)) {
          throw usageError(`--scope must be one of ${SCOPES.join(", ")}; got ${scope}`);
        }
      }
      const input = {
        label: options.label,
        ...(options.scope ? { scopes: [...new Set(options.scope)] } : {}),
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        ...(options.expires === undefined
          ? {}
          : { expiresAt: parseExpiry(options.expires, "--expires", rt.now()).toISOString() }),
      } as CreateKeyInput;
      const created = await (await authedClient(rt, options)).keys.create(input);
      out.note("Store this key now: it is not shown again.");
      await out.result(created, () => [
        created.key,
        `id         ${created.id}`,
        `label      ${created.label}`,
        `scopes     ${created.scopes.join(", ")}`,
        `namespace  ${created.namespace ?? "(any)"}`,
        `expires    ${created.expiresAt ?? "never"}`,
      ]);
    });

  keys
    .command("list")
    .description("List the API keys, newest first, revoked ones included (GET /keys)")
    .action(async (_options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const client = await authedClient(rt, options);
      const items: ApiKey[] = [];
      for await (const page of client.keys.listPages({ limit: 200 })) {
        items.push(...page.items);
      }
      const now = rt.now();
      await out.result({ items }, () =>
        items.length === 0
          ? "No API keys."
          : items.map((key) =>
              [
                key.id,
                `${key.prefix}…`,
                statusOf(key, now),
                JSON.stringify(key.label),
                key.scopes.join(","),
                key.namespace ? `ns ${key.namespace}` : "",
                `created ${key.createdAt}`,
                key.lastUsedAt ? `used ${key.lastUsedAt}` : "never used",
                key.expiresAt ? `expires ${key.expiresAt}` : "",
              ]
                .filter((part) => part !== "")
                .join("  "),
            ),
      );
    });

  keys
    .command("revoke")
    .description("Revoke an API key (DELETE /keys/:id), effective on its next request")
    .argument("<id>", "the key's id (from svc keys list)")
    .action(async (id: string, _options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      await (await authedClient(rt, options)).keys.revoke(id);
      await out.result({ id, revoked: true }, () => `Revoked ${id}.`);
    });
}
