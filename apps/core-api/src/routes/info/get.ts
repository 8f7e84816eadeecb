/**
 * `GET /info` (public): what an auditor pins before trusting a proof from this deployment: the
 * cluster, the commitment program, the anchoring authority, the leaf-encoding versions and the
 * hash construction (docs/protocol.md §5–§7), and the log's verifier keys (§13.1 "The log key").
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema } from "@verifiable-memory/http-kit";
import type { App, AppDeps } from "../../context.js";

const InfoSchema = z
  .object({
    service: z.string().openapi({ description: "SERVICE_NAME" }),
    cluster: z.enum(["mainnet", "devnet", "testnet", "localnet"]),
    programId: z.string().openapi({ description: "the commitment program, base58" }),
    anchorAuthority: z.string().nullable().openapi({
      description:
        "the key that signs commitments, base58 (null when this process is not configured with it)",
    }),
    leafEncodingVersions: z.array(z.number().int()).openapi({
      description:
        "leafData.v values this deployment verifies (new memories are written with the highest)",
    }),
    merkleTree: z.literal("RFC 9162 (SHA-256; leaf 0x00, node 0x01)"),
    siws: z.object({ domain: z.string(), uri: z.string() }),
    logKey: z.string().nullable().openapi({
      description:
        "the verifier key of the log key, `<LOG_ORIGIN>+<hex key id>+<base64(0x01 ‖ Ed25519 public key)>` (C2SP signed-note); it signs every user checkpoint and the checkpoint log's checkpoints (null when this process has no log key)",
    }),
    logKeys: z.array(z.string()).openapi({
      description:
        "the current verifier key then those of LOG_SIGNING_KEYS_PREVIOUS: notes signed before a rotation verify with one of them",
    }),
  })
  .openapi("ServiceInfo");

/** Leaf-encoding versions verified; new memories are written with the last (docs/protocol.md §5). */
const LEAF_ENCODING_VERSIONS = [1, 2];

/** Registers `GET /info`. */
export function registerGetInfo(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "get",
    path: "/info",
    operationId: "getServiceInfo",
    tags: ["proofs"],
    summary: "What an auditor pins: cluster, program, anchoring authority, leaf encoding",
    security: [],
    request: { query: NoQuerySchema },
    responses: {
      200: {
        description: "This deployment's anchoring parameters",
        content: { "application/json": { schema: InfoSchema } },
      },
      400: errorResponse("invalid_request: an unknown query parameter"),
    },
  });
  const { config } = deps;
  const info = {
    service: config.siws.serviceName,
    cluster: config.siws.chainId as z.infer<typeof InfoSchema>["cluster"],
    programId: config.programId,
    anchorAuthority: config.anchorAuthority,
    leafEncodingVersions: LEAF_ENCODING_VERSIONS,
    merkleTree: "RFC 9162 (SHA-256; leaf 0x00, node 0x01)" as const,
    siws: { domain: config.siws.domain, uri: config.siws.uri },
    logKey: config.logKey?.signer.vkey ?? null,
    logKeys: config.logKey?.verifiers.map((v) => v.vkey) ?? [],
  };
  app.openapi(route, (c) => c.json(info, 200));
}
