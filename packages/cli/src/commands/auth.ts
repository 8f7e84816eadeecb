/**
 * `svc login`, `svc logout`, `svc whoami`: the stored credential.
 * @module
 */
import { createClient, SvcError } from "@verifiable-memory/client";
import type { Command } from "commander";
import {
  credentialsPath,
  deleteCredentials,
  readCredentials,
  type StoredCredentials,
  writeCredentials,
} from "../credentials.js";
import { CliError, EXIT, usageError } from "../errors.js";
import { defaultKeypairPath, expandPath, readKeypairFile } from "../keypair.js";
import { readText } from "../parse.js";
import { optionsOf, outputOf, type Runtime } from "../runtime.js";
import { apiUrl, checkUrl, sessionCredentials, sessionExpired } from "../session.js";

interface LoginOptions {
  readonly keypair?: string;
  readonly apiKey?: string;
  readonly rpc?: string;
}

/** An API key's shape (docs/protocol.md §3.1): `svc_` + 48 lowercase hex. */
const API_KEY = /^svc_[0-9a-f]{48}$/;

/**
 * Checks an API key against the API before storing it: `GET /memories?limit=1` answers 401 for
 * an unknown, revoked or expired key, and 403 `insufficient_scope` for a valid key without
 * `memories:read` (which is still a key worth storing).
 * @throws SvcError for 401 and for any error other than 403.
 */
async function checkApiKey(baseUrl: string, apiKey: string): Promise<void> {
  try {
    await createClient({ baseUrl, apiKey, retry: false }).list({ limit: 1 });
  } catch (error) {
    if (error instanceof SvcError && error.status === 403) {
      return;
    }
    throw error;
  }
}

/** Registers `login`, `logout` and `whoami` on `program`. */
export function registerAuthCommands(program: Command, rt: Runtime): void {
  program
    .command("login")
    .description(
      "Sign in with a Solana keypair (Sign-In-With-Solana) or store an API key; the credential is saved to $XDG_CONFIG_HOME/svc/credentials.json (mode 0600)",
    )
    .option(
      "--keypair <file>",
      "Solana CLI keypair JSON file to sign in with (default ~/.config/solana/id.json)",
    )
    .option("--api-key <key>", "store this API key (svc_…) instead; '-' reads it from stdin")
    .option("--rpc <url>", "default chain RPC for `svc verify`, stored with the credential")
    .addHelpText(
      "after",
      "\nA session lasts one hour; svc renews it by signing in again with the same keypair file.\nThe keypair itself is never copied: only its path is stored.",
    )
    .action(async (_options: LoginOptions, command: Command) => {
      const options = optionsOf<LoginOptions>(command);
      const out = outputOf(rt, options);
      if (options.keypair !== undefined && options.apiKey !== undefined) {
        throw usageError("give --keypair or --api-key, not both");
      }
      const previous = await readCredentials(rt.env).catch(() => null);
      const baseUrl = apiUrl(rt, options, previous);
      const rpcUrl = options.rpc === undefined ? previous?.rpcUrl : checkUrl(options.rpc, "--rpc");
      const savedAt = rt.now().toISOString();
      let credentials: StoredCredentials;
      if (options.apiKey !== undefined) {
        const apiKey = (
          options.apiKey === "-" ? await readText("-", "the API key from") : options.apiKey
        ).trim();
        if (!API_KEY.test(apiKey)) {
          throw usageError("--api-key must be an API key: svc_ followed by 48 hex digits");
        }
        await checkApiKey(baseUrl, apiKey);
        credentials = {
          version: 1,
          url: baseUrl,
          kind: "api_key",
          token: apiKey,
          expiresAt: null,
          ...(rpcUrl ? { rpcUrl } : {}),
          savedAt,
        };
      } else {
        const keypairPath = expandPath(options.keypair ?? defaultKeypairPath(rt.env), rt.env);
        const secretKey = await readKeypairFile(keypairPath);
        const session = await createClient({ baseUrl }).signInWithKeypair(secretKey);
        credentials = sessionCredentials(rt, session, {
          url: baseUrl,
          keypairPath,
          ...(rpcUrl ? { rpcUrl } : {}),
        });
      }
      const path = await writeCredentials(rt.env, credentials);
      await out.result(
        {
          url: credentials.url,
          kind: credentials.kind,
          publicKey: credentials.publicKey ?? null,
          userId: credentials.userId ?? null,
          expiresAt: credentials.expiresAt,
          keyPrefix: credentials.kind === "api_key" ? credentials.token.slice(0, 12) : null,
          credentialsFile: path,
        },
        () =>
          credentials.kind === "session"
            ? [
                `Signed in to ${credentials.url} as ${credentials.publicKey}.`,
                `Session valid until ${credentials.expiresAt} (renewed with ${credentials.keypairPath}).`,
                `Credentials saved to ${path}.`,
              ]
            : [
                `Stored API key ${credentials.token.slice(0, 12)}… for ${credentials.url}.`,
                `Credentials saved to ${path}.`,
              ],
      );
    });

  program
    .command("logout")
    .description("Delete the stored credential (an API key stays valid until `svc keys revoke`)")
    .action(async (_options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const path = credentialsPath(rt.env);
      const removed = await deleteCredentials(rt.env);
      await out.result({ loggedOut: removed, credentialsFile: path }, () =>
        removed ? `Logged out: removed ${path}.` : "Not logged in: nothing to remove.",
      );
    });

  program
    .command("whoami")
    .description("Show the stored credential (never the secret itself)")
    .action(async (_options: object, command: Command) => {
      const options = optionsOf(command);
      const out = outputOf(rt, options);
      const stored = await readCredentials(rt.env);
      if (!stored && !rt.env.SVC_API_KEY) {
        throw new CliError({
          code: "not_logged_in",
          message: "not logged in: run `svc login`",
          exitCode: EXIT.auth,
        });
      }
      const fromEnv = Boolean(rt.env.SVC_API_KEY);
      const url = apiUrl(rt, options, stored);
      const expired = !fromEnv && stored !== null && sessionExpired(rt, stored);
      const view = {
        url,
        kind: fromEnv ? "api_key" : stored?.kind,
        source: fromEnv ? "SVC_API_KEY" : credentialsPath(rt.env),
        publicKey: fromEnv ? null : (stored?.publicKey ?? null),
        userId: fromEnv ? null : (stored?.userId ?? null),
        expiresAt: fromEnv ? null : (stored?.expiresAt ?? null),
        expired,
        keyPrefix: fromEnv
          ? (rt.env.SVC_API_KEY ?? "").slice(0, 12)
          : stored?.kind === "api_key"
            ? stored.token.slice(0, 12)
            : null,
        rpcUrl: stored?.rpcUrl ?? null,
      };
      await out.result(view, () => [
        `url         ${view.url}`,
        `credential  ${view.kind === "session" ? `session of ${view.publicKey}` : `API key ${view.keyPrefix}…`} (${view.source})`,
        ...(view.kind === "session"
          ? [`expires     ${view.expiresAt}${expired ? " (expired; renewed on next use)" : ""}`]
          : []),
        ...(view.rpcUrl ? [`rpc         ${view.rpcUrl}`] : []),
      ]);
    });
}
