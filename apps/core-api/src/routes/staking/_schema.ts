/**
 * OpenAPI schemas shared by the staking routes (docs/protocol.md §11; amounts in lamports as decimal
 * strings, instants in ISO 8601).
 * @module
 */
import { z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";

/** Lamports as a decimal string. */
const Lamports = z.string().openapi({ example: "1000000000", description: "lamports" });

/** One lot of a vault. */
export const LotSchema = z
  .object({
    amountLamports: Lamports,
    maturesAt: z.string().openapi({ example: "2026-12-02T10:00:00.000Z" }),
    matured: z.boolean(),
  })
  .openapi("StakeLot");

/** The answers every staking route shares when the chain cannot be read. */
export const chainErrorResponses = {
  401: unauthorizedResponse(),
  429: rateLimitedResponse("rate_limited: too many requests with this credential"),
  503: errorResponse("chain_unavailable (the chain RPC read failed) or staking_not_configured"),
} as const;

/** A base64 wire transaction. */
export const TransactionBase64 = z
  .string()
  .openapi({ description: "Solana legacy transaction, base64 wire format" });

export { Lamports };
