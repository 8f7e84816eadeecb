/**
 * Errors as a person reads them: what failed, in one sentence, and what to do about it. The
 * API's stable codes (docs/protocol.md §1.4) decide the sentence; the request id is kept for a
 * report.
 * @module
 */
import { SvcError } from "@verifiable-memory/client";

/** An error ready to show. */
export interface ShownError {
  /** One sentence: what happened and what to do. */
  readonly text: string;
  /** The answer's `x-request-id`, when there was an answer. */
  readonly requestId: string | null;
  /** True when the session is over (the page then returns to sign-in). */
  readonly signedOut: boolean;
  /** For `rate_limited`: seconds until the API admits another request. */
  readonly retryAfterSeconds: number | null;
}

/** `details.retryAfterSeconds` of a `rate_limited` answer (docs/protocol.md §12), if any. */
function retryAfter(details: unknown): number | null {
  const value = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof value === "number" && value >= 0 ? value : null;
}

const SENTENCES: Readonly<Record<string, string>> = {
  unauthorized: "Your session has expired or was revoked. Sign in again.",
  session_required: "Only a wallet session can do this, not an API key. Sign in with your wallet.",
  insufficient_scope: "The API key you signed in with lacks the scope this needs.",
  forbidden: "This is outside the namespace your API key is confined to.",
  not_found: "Not found: it does not exist, was deleted, or is not yours.",
  conflict: "It changed meanwhile: it was deleted or already updated. Reload and try again.",
  chain_unavailable: "The service cannot reach the chain right now. Try again shortly.",
  staking_not_configured: "Staking is not set up on this chain.",
  database_unavailable: "The service cannot reach its database right now. Try again shortly.",
  insufficient_funds: "The wallet cannot pay for this (amount, fee or rent).",
  too_many_lots: "The vault already holds 32 lots; unstake matured ones first.",
  nothing_matured: "No lot has matured yet.",
  blockhash_expired: "The transaction waited too long to be signed. Try again.",
};

/**
 * The sentence for `error` (anything a call threw). `apiUrl` names the service when it could not
 * be reached.
 */
export function describeError(error: unknown, apiUrl: string): ShownError {
  if (error instanceof SvcError) {
    const base = { requestId: error.requestId, signedOut: false, retryAfterSeconds: null };
    if (error.code === "network_error") {
      return {
        ...base,
        text: `The service at ${apiUrl} cannot be reached. Check that it is running and that this is its address.`,
      };
    }
    if (error.code === "rate_limited") {
      const wait = retryAfter(error.details);
      return {
        ...base,
        retryAfterSeconds: wait,
        text: `Too many requests. Wait ${wait ?? "a few"} seconds and try again.`,
      };
    }
    if (error.code === "unauthorized") {
      return { ...base, signedOut: true, text: SENTENCES.unauthorized as string };
    }
    const sentence = SENTENCES[error.code];
    if (sentence !== undefined) {
      return { ...base, text: sentence };
    }
    return { ...base, text: `${error.message} (${error.code}).` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { text: message, requestId: null, signedOut: false, retryAfterSeconds: null };
}
