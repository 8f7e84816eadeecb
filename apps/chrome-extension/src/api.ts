/**
 * The extension API client: every call carries the stored token; a 401 forgets it (revoked,
 * expired or logged out elsewhere).
 * @module
 */
import { forgetToken, serviceUrl, storedToken } from "./settings.js";

/** A memory as the API returns it. */
export interface Memory {
  readonly id: string;
  readonly content: string;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: string;
  readonly anchored: boolean;
}

/** A refused call: the API's error code and message, and the HTTP status. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiCallError";
  }
}

/**
 * Calls the extension API with the stored token.
 * @throws ApiCallError for an error answer (401 also forgets the token), or when not connected.
 */
export async function callApi<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const token = await storedToken();
  if (!token) {
    throw new ApiCallError(401, "unauthorized", "not connected");
  }
  const res = await fetch(`${await serviceUrl()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 401) {
    await forgetToken();
  }
  if (res.status === 204) {
    return undefined as T;
  }
  const answer = (await res.json()) as T & { error?: { code: string; message: string } };
  if (!res.ok) {
    throw new ApiCallError(
      res.status,
      answer.error?.code ?? "error",
      answer.error?.message ?? `HTTP ${res.status}`,
    );
  }
  return answer;
}

/** `GET /me`. */
export function me(): Promise<{ userId: string; publicKey: string; tokenExpiresAt: string }> {
  return callApi("GET", "/me");
}

/** `POST /memories`: remember `content` with `metadata`. */
export function remember(
  content: string,
  metadata: Record<string, unknown>,
): Promise<{ id: string; leafIndex: number }> {
  return callApi("POST", "/memories", { content, metadata });
}

/** `POST /memories/search`: recall by substring. */
export function recall(query: string, limit = 20): Promise<{ items: Memory[]; scanned: number }> {
  return callApi("POST", "/memories/search", { query, limit });
}

/** `POST /auth/logout`: revokes the token server-side, then forgets it. */
export async function logout(): Promise<void> {
  try {
    await callApi<void>("POST", "/auth/logout");
  } finally {
    await forgetToken();
  }
}
