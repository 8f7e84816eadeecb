/**
 * Request and response schemas of the connect flow (docs/protocol.md §9, §1).
 * @module
 */
import { z } from "@hono/zod-openapi";

/** A redirect URI as received; its form is checked by the service (400 invalid_redirect_uri). */
export const RedirectUriSchema = z.string().min(1).max(2048).openapi({
  description: "The extension page that receives the token: chrome-extension://<id>/…",
  example: "chrome-extension://abcdefghijklmnopabcdefghijklmnop/connected.html",
});

/** Opaque client state echoed in the redirect's fragment. */
export const StateSchema = z
  .string()
  .max(512)
  .regex(/^[\x21-\x7e]*$/, "must be printable ASCII without spaces")
  .openapi({ description: "Opaque value echoed back in the redirect fragment" });

/** A base58 wallet public key as received (checked to be 32 bytes: 400 invalid_public_key). */
export const PublicKeySchema = z.string().max(1024).openapi({ description: "base58, 32 bytes" });
