/**
 * core-api's types, GENERATED from its committed OpenAPI document (packages/client/openapi.json)
 * by packages/client/scripts/generate.ts with openapi-typescript. Do not edit by hand: run
 * `pnpm --filter @verifiable-memory/client generate`. `.ci/run` and packages/client/test/generated.test.ts fail
 * when this file differs from what openapi.json generates.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: database reachable and every migration applied */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What an auditor pins: cluster, program, anchoring authority, leaf encoding */
        get: operations["getServiceInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a sign-in challenge for a wallet public key */
        post: operations["createSignInChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify a signed challenge and get a session token (HS256 JWT, 1 hour) */
        post: operations["verifySignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's API keys */
        get: operations["listApiKeys"];
        put?: never;
        /** Mint an API key (needs a wallet session) */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's memories, newest first */
        get: operations["listMemories"];
        put?: never;
        /** Store a memory (encrypted at rest, appended to the caller's Merkle log) */
        post: operations["createMemory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Store 1–256 memories at once (all or nothing, contiguous leaves, request order)
         * @description Each item is a `POST /memories` body; the body may be up to 1 MiB. An invalid item fails the whole request (400, `details[].path` such as `["items", 3, "content"]`) and nothing is stored.
         */
        post: operations["createMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recall memories: substring or filter (newest first), BM25 relevance, semantic (embeddings) or hybrid ranking, with metadata operators, namespaces and a cursor */
        post: operations["searchMemories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one memory */
        get: operations["getMemory"];
        /** Update a memory: append a new version that supersedes it (both stay provable) */
        put: operations["updateMemory"];
        post?: never;
        /** Delete a memory's body (its leaf stays, so roots and other proofs stay valid) */
        delete: operations["deleteMemory"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version of a memory, oldest first, each with its proof */
        get: operations["getMemoryHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{id}/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The memory's inclusion proof at the latest anchored checkpoint */
        get: operations["getMemoryProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Check the memory's proof against the commitment account read from the chain */
        get: operations["verifyMemory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's Merkle log head and its latest anchored checkpoint */
        get: operations["getLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/log/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** RFC 9162 consistency proof between two tree sizes (1 ≤ from ≤ to ≤ treeSize) */
        get: operations["getLogConsistency"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/log/checkpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's anchored checkpoints, newest first */
        get: operations["listLogCheckpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's namespaces with their memory counts */
        get: operations["listNamespaces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/owners/{owner}/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public RFC 9162 consistency proof between two anchored sizes of an owner's log
         * @description No credential. Answers PROOF(from, D[to]) of the owner's log for 1 ≤ from ≤ to ≤ the size of the owner's latest anchored checkpoint (only anchored sizes are public; the chain shows `memoryCount` anyway). Hashes only. A verifier holding a proof bundle cut at size `from` checks the proof between the bundle's root and the root read from the chain at size `to`, and never trusts `fromRoot`/`toRoot`. Counted against the client IP's limit of unauthenticated routes.
         */
        get: operations["getOwnerConsistency"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/owners/{owner}/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The owner's latest anchored checkpoint, a signed note (C2SP tlog-checkpoint)
         * @description No credential. The note text is `<LOG_ORIGIN>/users/<owner>`, the anchored tree size and the base64 root, each line ending in a newline; one signature line by the log key (key name LOG_ORIGIN, its verifier key in `GET /info` logKey). Verify it with that key, then compare size and root with the owner's commitment account on chain. Counted against the client IP's limit of unauthenticated routes.
         */
        get: operations["getOwnerCheckpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the caller's memory events (Server-Sent Events), resumable
         * @description Without `Last-Event-ID` the stream carries only events after the latest one; with it, the events after that id are replayed first. An API key confined to a namespace gets only the memory events under its prefix, plus every `memory.anchored` event (the log is one tree per wallet). `namespace` / `namespacePrefix` narrow the memory events further; a filter outside the confinement matches none of them. Events are kept 7 days.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Model Context Protocol endpoint: the memory tools for AI agents
         * @description The Model Context Protocol (Streamable HTTP transport, stateless, JSON answers) with the memory tools `remember` (the `POST /memories` body), `recall` (the `POST /memories/search` body), `list` (the search body without `query`, `rank` or `caseSensitive`: newest first), `get`, `history`, `forget`, `prove` and `verify` `{ id }`, and `update` `{ id, content, metadata?, namespace? }` (`PUT /memories/:id`). Arguments are validated by the same schemas as those routes: a refusal is a tool error result carrying the route's 400 body. Point an MCP client at this URL with the `Authorization: Bearer` header; send `Accept: application/json, text/event-stream`. The tools act as the caller: an API key needs `memories:write` to remember and update, `memories:read` to recall, list, get, history, prove and verify, `memories:delete` to forget (a tool without its scope answers an error result `insufficient_scope`), and a namespace-confined key sees and writes only its namespace. Tool results are JSON text carrying memory ids and the `anchored` state. No sessions: `GET /mcp` and `DELETE /mcp` answer 405 `method_not_allowed`.
         */
        post: operations["mcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent-cases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's grants, newest first */
        get: operations["listGrants"];
        put?: never;
        /**
         * Share one operation through a capability URL
         * @description Needs grants:write and the scopes of the delegated operation (memories:read for read_memories and search). A grant created by an API key is revoked with that key, and from its expiry on.
         */
        post: operations["createGrant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent-cases/{grant}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Use a capability grant (the token is the credential) */
        get: operations["useGrant"];
        put?: never;
        post?: never;
        /** Revoke a grant */
        delete: operations["revokeGrant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agent-cases/{id}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The attempts to use a grant, newest first */
        get: operations["listGrantAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/staking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's stake vault and lots, read from the chain */
        get: operations["getStaking"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/staking/stake": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build an unsigned stake transaction (fee payer: the wallet) */
        post: operations["prepareStake"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/staking/unstake": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build an unsigned unstake transaction paying every matured lot */
        post: operations["prepareUnstake"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/staking/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Relay a signed stake or unstake transaction and wait for its confirmation */
        post: operations["submitStakingTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tlog/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public RFC 9162 consistency proof between two signed sizes of the checkpoint log
         * @description No credential. Answers PROOF(from, D[to]) of the checkpoint log for 1 ≤ from ≤ to ≤ the size of its latest signed checkpoint (`/tlog/checkpoint`). Hashes only. A verifier holding a bundle's `checkpointLog` cut at size `from` checks the proof between its `rootHash` and the root read from the checkpoint log account at size `to`, and never trusts `fromRoot`/`toRoot`. Counted against the client IP's limit of the `/tlog/` routes (RATE_LIMIT_TLOG_PER_MINUTE).
         */
        get: operations["getCheckpointLogConsistency"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                /** @example invalid_request */
                code: string;
                message: string;
                details?: unknown;
            };
        };
        ServiceInfo: {
            /** @description SERVICE_NAME */
            service: string;
            /** @enum {string} */
            cluster: "mainnet" | "devnet" | "testnet" | "localnet";
            /** @description the commitment program, base58 */
            programId: string;
            /** @description the key that signs commitments, base58 (null when this process is not configured with it) */
            anchorAuthority: string | null;
            /** @description leafData.v values this deployment verifies (new memories are written with the highest) */
            leafEncodingVersions: number[];
            /** @enum {string} */
            merkleTree: "RFC 9162 (SHA-256; leaf 0x00, node 0x01)";
            siws: {
                domain: string;
                uri: string;
            };
            /** @description the verifier key of the log key, `<LOG_ORIGIN>+<hex key id>+<base64(0x01 ‖ Ed25519 public key)>` (C2SP signed-note); it signs every user checkpoint and the checkpoint log's checkpoints (null when this process has no log key) */
            logKey: string | null;
            /** @description the current verifier key then those of LOG_SIGNING_KEYS_PREVIOUS: notes signed before a rotation verify with one of them */
            logKeys: string[];
        };
        Challenge: {
            /** @description The exact text to sign (SIWS, docs/protocol.md §2) */
            message: string;
            nonce: string;
            expiresAt: string;
        };
        Session: {
            token: string;
            /** @enum {string} */
            tokenType: "Bearer";
            expiresAt: string;
            userId: string;
            publicKey: string;
        };
        CreatedApiKey: {
            id: string;
            key: string;
            prefix: string;
            label: string;
            createdAt: string;
            scopes: ("memories:read" | "memories:write" | "memories:delete" | "grants:write")[];
            /** @description null: never expires */
            expiresAt: string | null;
            /** @description the namespace prefix the key is confined to; null: none */
            namespace: string | null;
        };
        ApiKey: {
            id: string;
            prefix: string;
            label: string;
            createdAt: string;
            lastUsedAt: string | null;
            revokedAt: string | null;
            scopes: ("memories:read" | "memories:write" | "memories:delete" | "grants:write")[];
            /** @description null: never expires */
            expiresAt: string | null;
            /** @description the namespace prefix the key is confined to; null: none */
            namespace: string | null;
        };
        CreatedMemory: {
            id: string;
            leafIndex: number;
            /** @description lowercase hex SHA-256(0x00 ‖ leafData) */
            leafHash: string;
            metadata: {
                [key: string]: unknown;
            };
            namespace: string | null;
            writtenBy: components["schemas"]["Writer"];
            /** @description the memory this one updates */
            supersedes: string | null;
            /** @description the memory that updated this one; null while current */
            supersededBy: string | null;
            createdAt: string;
            anchored: boolean;
        };
        /** @description who wrote it (committed in the leaf); null on version-1 leaves */
        Writer: {
            /** @enum {string} */
            kind: "session";
        } | {
            /** @enum {string} */
            kind: "api_key";
            keyId: string;
        } | null;
        /**
         * @description A JSON object, at most 4 096 bytes as RFC 8785 canonical JSON; keys 1–64 chars
         * @example {
         *       "source": "notes.md",
         *       "section": "intro"
         *     }
         */
        Metadata: {
            [key: string]: unknown;
        };
        CreatedMemories: {
            items: components["schemas"]["CreatedMemory"][];
        };
        MemoryPage: {
            items: components["schemas"]["Memory"][];
            nextCursor: string | null;
        };
        Memory: {
            id: string;
            leafIndex: number;
            /** @description lowercase hex SHA-256(0x00 ‖ leafData) */
            leafHash: string;
            content: string;
            metadata: {
                [key: string]: unknown;
            };
            namespace: string | null;
            writtenBy: components["schemas"]["Writer"];
            /** @description the memory this one updates */
            supersedes: string | null;
            /** @description the memory that updated this one; null while current */
            supersededBy: string | null;
            createdAt: string;
            anchored: boolean;
            /** @description relevance: BM25 score; semantic: cosine similarity; hybrid: fused reciprocal-rank score (absent with recency) */
            score?: number;
        };
        SearchResult: {
            items: components["schemas"]["Memory"][];
            /** @description live memories examined */
            scanned: number;
            /** @description pass as `cursor` for the next page */
            nextCursor: string | null;
            /** @description semantic and hybrid: memories passing the filter without a vector of the current model (left out of semantic, ranked by BM25 alone in hybrid) */
            unranked?: number;
        };
        /**
         * @description key → value (deep equality) or operators: { "$in": [..] }, { "$gte": n | ISO time }, { "$lte": n | ISO time }, { "$contains": scalar } (arrays)
         * @example {
         *       "topic": "billing",
         *       "importance": {
         *         "$gte": 3
         *       },
         *       "tags": {
         *         "$contains": "urgent"
         *       }
         *     }
         */
        MetadataFilter: {
            [key: string]: unknown;
        };
        MemoryHistory: {
            items: components["schemas"]["MemoryWithProof"][];
        };
        MemoryWithProof: components["schemas"]["Memory"] & {
            proof: components["schemas"]["ProofBundle"];
        };
        ProofBundle: {
            memoryId: string;
            leafIndex: number;
            leafHash: string;
            leafData: components["schemas"]["LeafData"];
            /** @description the 16-byte salt, standard base64 */
            salt: string;
            anchored: boolean;
            checkpoint: {
                treeSize: number;
                rootHash: string;
            } | null;
            inclusionProof: string[] | null;
            anchor: {
                cluster: string;
                programId: string;
                account: string;
                memoryCount: number;
                nonce: number;
                signature: string;
            } | null;
            checkpointLog: components["schemas"]["CheckpointLogProof"];
        };
        LeafData: components["schemas"]["LeafDataV1"] | components["schemas"]["LeafDataV2"];
        LeafDataV1: {
            /** @enum {number} */
            v: 1;
            memoryId: string;
            owner: string;
            createdAt: string;
            metadata: {
                [key: string]: unknown;
            };
            contentHash: string;
        };
        LeafDataV2: {
            /** @enum {number} */
            v: 2;
            memoryId: string;
            owner: string;
            createdAt: string;
            metadata: {
                [key: string]: unknown;
            };
            contentHash: string;
            namespace: string | null;
            writtenBy: components["schemas"]["Writer"];
            supersedes: string | null;
        };
        /** @description the path through the checkpoint log (docs/protocol.md §6.1): null until a logged user checkpoint under an anchored checkpoint-log head covers the memory */
        CheckpointLogProof: {
            /** @description the user checkpoint's note text (`<LOG_ORIGIN>/users/<owner>`, size, base64 root; each line ending in a newline), the checkpoint log's entry */
            entry: string;
            /** @description the same user checkpoint as a signed note (docs/protocol.md §13.3) */
            userCheckpoint: string;
            /** @description audit path of the memory's leaf in the user's tree at the entry's size */
            userInclusionProof: string[];
            /** @description the entry's index in the checkpoint log */
            leafIndex: number;
            /** @description checkpoint log size at its latest anchored head */
            treeSize: number;
            /** @description checkpoint log root at `treeSize`, hex */
            rootHash: string;
            /** @description audit path of the entry in the checkpoint log of `treeSize` entries */
            inclusionProof: string[];
            anchor: {
                cluster: string;
                programId: string;
                /** @description the checkpoint log account, PDA ["checkpoint-log", authority] */
                account: string;
                size: number;
                /** @description the account's nonce after the transaction */
                nonce: number;
                signature: string;
                slot: number;
            };
        } | null;
        VerifyResult: {
            verified: boolean;
            /** @enum {string|null} */
            reason: "not_anchored" | "root_mismatch" | "proof_invalid" | null;
            /**
             * @description what the memory was checked through: the owner's commitment account, or (for a memory only the checkpoint log covers yet) the checkpoint log account
             * @enum {string}
             */
            path: "account" | "checkpoint_log";
            checkedAgainst: {
                cluster: string;
                programId: string;
                account: string;
                memoryCount: number;
                nonce: number;
                rootHash: string;
            } | null;
            /** @description the checkpoint log account as read (path checkpoint_log), else null */
            checkpointLog: {
                cluster: string;
                programId: string;
                /** @description the PDA ["checkpoint-log", authority] */
                account: string;
                size: number;
                nonce: number;
                rootHash: string;
            } | null;
        };
        Log: {
            treeSize: number;
            rootHash: string;
            anchored: {
                treeSize: number;
                rootHash: string;
                nonce: number;
                signature: string;
            } | null;
        };
        ConsistencyProof: {
            from: number;
            to: number;
            fromRoot: string;
            toRoot: string;
            proof: string[];
        };
        AnchoredCheckpointPage: {
            items: components["schemas"]["AnchoredCheckpoint"][];
            nextCursor: string | null;
        };
        AnchoredCheckpoint: {
            /** @description the tree size committed */
            treeSize: number;
            /** @description the root at that size, lowercase hex */
            rootHash: string;
            /** @description the commitment account's nonce after it */
            nonce: number;
            /** @description the commit transaction's signature, base58 */
            signature: string;
            /** @description the slot it landed in (null: not recorded) */
            slot: number | null;
            /** @description when it was seen confirmed */
            anchoredAt: string;
        };
        NamespacePage: {
            items: components["schemas"]["NamespaceCount"][];
            nextCursor: string | null;
        };
        NamespaceCount: {
            /** @description the namespace; null for the memories written without one */
            namespace: string | null;
            /** @description live, current memories in it */
            count: number;
            /** @description creation time of the newest of them */
            lastWrittenAt: string;
        };
        OwnerConsistencyProof: {
            /** @description the owner's wallet public key, base58 */
            owner: string;
            from: number;
            to: number;
            /** @description root of the owner's tree of `from` leaves (informative: verify against yours), 64 lowercase hex characters */
            fromRoot: string;
            /** @description root of the owner's tree of `to` leaves (informative: verify against the chain), 64 lowercase hex characters */
            toRoot: string;
            proof: string[];
        };
        /** @description A JSON-RPC 2.0 message of the Model Context Protocol, e.g. `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"french"}}}` */
        JsonRpcMessage: {
            /** @enum {string} */
            jsonrpc: "2.0";
            id?: string | number;
            method?: string;
            params?: {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        CreatedGrant: {
            id: string;
            /** @description PUBLIC_BASE_URL/agent-cases/<token> */
            url: string;
            /** @description 32 random bytes, base58; only its SHA-256 is kept */
            token: string;
            operation: {
                /** @enum {string} */
                type: "read_memories";
                memoryIds: string[];
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            } | {
                /** @enum {string} */
                type: "search";
                query: string;
                limit?: number;
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            };
            label: string | null;
            expiresAt: string;
            maxUses: number;
            usesRemaining: number;
            createdAt: string;
        };
        GrantOperation: {
            /** @enum {string} */
            type: "read_memories";
            memoryIds: string[];
        } | {
            /** @enum {string} */
            type: "search";
            /**
             * @description 1 to 32768 UTF-8 bytes of well-formed Unicode (no lone surrogate)
             * @example The user prefers dark mode and answers in French.
             */
            query: string;
            limit?: number;
        };
        GrantPage: {
            items: components["schemas"]["Grant"][];
            nextCursor: string | null;
        };
        Grant: {
            id: string;
            operation: {
                /** @enum {string} */
                type: "read_memories";
                memoryIds: string[];
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            } | {
                /** @enum {string} */
                type: "search";
                query: string;
                limit?: number;
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            };
            label: string | null;
            expiresAt: string;
            maxUses: number;
            usesRemaining: number;
            /** @enum {string} */
            status: "active" | "revoked" | "expired" | "exhausted";
            revokedAt: string | null;
            createdAt: string;
        };
        GrantAttemptPage: {
            items: components["schemas"]["GrantAttempt"][];
            nextCursor: string | null;
        };
        GrantAttempt: {
            id: string;
            at: string;
            /** @enum {string} */
            outcome: "ok" | "not_found" | "revoked" | "expired" | "exhausted";
            ip: string | null;
            userAgent: string | null;
        };
        GrantUse: {
            operation: {
                /** @enum {string} */
                type: "read_memories";
                memoryIds: string[];
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            } | {
                /** @enum {string} */
                type: "search";
                query: string;
                limit?: number;
                /** @description set when a namespace-confined API key created the grant: it reaches only that prefix */
                namespacePrefix?: string;
            };
            expiresAt: string;
            usesRemaining: number;
            memories: components["schemas"]["MemoryWithProof"][];
            /** @description granted memories left out because they were deleted */
            omitted: number;
        };
        StakingPosition: {
            /** @description the wallet's vault PDA ["vault", owner] */
            vault: string;
            /**
             * @description lamports
             * @example 1000000000
             */
            balanceLamports: string;
            /**
             * @description lamports
             * @example 1000000000
             */
            withdrawableLamports: string;
            lockPeriodSeconds: number;
            /** @description the chain's clock at the read */
            chainTime: string;
            lots: components["schemas"]["StakeLot"][];
        };
        StakeLot: {
            /**
             * @description lamports
             * @example 1000000000
             */
            amountLamports: string;
            /** @example 2026-12-02T10:00:00.000Z */
            maturesAt: string;
            matured: boolean;
        };
        PreparedStake: {
            /** @description Solana legacy transaction, base64 wire format */
            transaction: string;
            vault: string;
            /** @description chain clock now + the lock period */
            maturesAt: string;
        };
        PreparedUnstake: {
            /** @description Solana legacy transaction, base64 wire format */
            transaction: string;
            /**
             * @description lamports
             * @example 1000000000
             */
            amountLamports: string;
            lots: components["schemas"]["StakeLot"][];
        };
        SubmittedTransaction: {
            /** @description transaction signature, base58 */
            signature: string;
            slot: number;
        };
        CheckpointLogConsistencyProof: {
            from: number;
            to: number;
            /** @description root of the checkpoint log of `from` entries (informative), 64 lowercase hex characters */
            fromRoot: string;
            /** @description root of the checkpoint log of `to` entries (informative), 64 lowercase hex characters */
            toRoot: string;
            proof: string[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description invalid_request: an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                    };
                };
            };
            /** @description invalid_request: an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description database_unavailable (no answer) or migrations_pending */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getServiceInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This deployment's anchoring parameters */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceInfo"];
                };
            };
            /** @description invalid_request: an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSignInChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description base58, 32 bytes */
                    publicKey: string;
                };
            };
        };
        responses: {
            /** @description The challenge */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Challenge"];
                };
            };
            /** @description invalid_request or invalid_public_key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description challenges_exhausted: AUTH_CHALLENGE_MAX_OUTSTANDING unexpired challenges are stored; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifySignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    publicKey: string;
                    message: string;
                    signature: string;
                };
            };
        };
        responses: {
            /** @description Signed in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description invalid_request, invalid_public_key or malformed_message */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description nonce_not_found, challenge_expired, message_mismatch or invalid_signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ApiKey"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_required */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    label: string;
                    /** @description default: all four */
                    scopes?: ("memories:read" | "memories:write" | "memories:delete" | "grants:write")[];
                    /**
                     * Format: date-time
                     * @description ISO 8601 time, in the future; default: never
                     */
                    expiresAt?: string;
                    /**
                     * @description confine the key to memories whose namespace starts with this
                     * @example agent:research/run:42
                     */
                    namespace?: string;
                };
            };
        };
        responses: {
            /** @description The new key (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_required */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_required */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listMemories: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
                /** @description 1–128 characters of `[A-Za-z0-9._:/-]`, e.g. `agent:research/run:42` */
                namespace?: string;
                /** @description 1–128 characters of `[A-Za-z0-9._:/-]`, e.g. `agent:research/run:42` */
                namespacePrefix?: string;
                /** @description also list superseded versions (default: current only) */
                includeSuperseded?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of memories */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryPage"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMemory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description 1 to 32768 UTF-8 bytes of well-formed Unicode (no lone surrogate)
                     * @example The user prefers dark mode and answers in French.
                     */
                    content: string;
                    metadata?: components["schemas"]["Metadata"];
                    /**
                     * @description committed in the leaf; default: the API key's namespace confinement, or none (for PUT: the superseded memory's)
                     * @example agent:research/run:42
                     */
                    namespace?: string;
                };
            };
        };
        responses: {
            /** @description The stored memory's leaf */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedMemory"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope, or forbidden: a namespace outside the API key's confinement */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMemories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    items: {
                        /**
                         * @description 1 to 32768 UTF-8 bytes of well-formed Unicode (no lone surrogate)
                         * @example The user prefers dark mode and answers in French.
                         */
                        content: string;
                        metadata?: components["schemas"]["Metadata"];
                        /**
                         * @description committed in the leaf; default: the API key's namespace confinement, or none (for PUT: the superseded memory's)
                         * @example agent:research/run:42
                         */
                        namespace?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description The stored memories' leaves, in request order */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedMemories"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope, or forbidden: a namespace outside the API key's confinement */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    searchMemories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description recency: a substring every match holds; relevance: the terms to score; semantic and hybrid: the text whose meaning is searched. Optional for recency when a filter is given
                     * @example The user prefers dark mode and answers in French.
                     */
                    query?: string;
                    /**
                     * @description most memories in the page, 1–200 (default 20)
                     * @default 20
                     */
                    limit?: number;
                    /**
                     * @description match the query's case exactly (default false)
                     * @default false
                     */
                    caseSensitive?: boolean;
                    metadata?: components["schemas"]["MetadataFilter"];
                    /**
                     * @description only memories of exactly this namespace
                     * @example agent:research/run:42
                     */
                    namespace?: string;
                    /**
                     * @description only memories whose namespace starts with this
                     * @example agent:research/run:42
                     */
                    namespacePrefix?: string;
                    /**
                     * Format: date-time
                     * @description only memories created strictly after this ISO 8601 time (with an offset)
                     */
                    createdAfter?: string;
                    /**
                     * Format: date-time
                     * @description only memories created strictly before this ISO 8601 time (with an offset)
                     */
                    createdBefore?: string;
                    /**
                     * @description "recency" (newest first, the default), "relevance" (BM25 over the text), "semantic" (cosine similarity of embeddings) or "hybrid" (reciprocal rank fusion of both); all but recency need a query, semantic and hybrid an embedding model (EMBEDDINGS)
                     * @default recency
                     * @enum {string}
                     */
                    rank?: "recency" | "relevance" | "semantic" | "hybrid";
                    /**
                     * @description also versions replaced by an update (default false: current versions only)
                     * @default false
                     */
                    includeSuperseded?: boolean;
                    /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                    cursor?: string;
                };
            };
        };
        responses: {
            /** @description Matching memories */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResult"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Memory"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description 1 to 32768 UTF-8 bytes of well-formed Unicode (no lone surrogate)
                     * @example The user prefers dark mode and answers in French.
                     */
                    content: string;
                    metadata?: components["schemas"]["Metadata"];
                    /**
                     * @description committed in the leaf; default: the API key's namespace confinement, or none (for PUT: the superseded memory's)
                     * @example agent:research/run:42
                     */
                    namespace?: string;
                };
            };
        };
        responses: {
            /** @description The new version's leaf (`supersedes` is the updated memory's id) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedMemory"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope, or forbidden: a namespace outside the API key's confinement */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict: the memory is deleted or already superseded */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMemoryHistory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The versions (deleted ones left out), oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryHistory"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMemoryProof: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proof bundle (checkpoint, inclusionProof and anchor are null until the owner's account covers the memory; checkpointLog is null until an anchored checkpoint-log head does) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProofBundle"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The outcome */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VerifyResult"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description chain_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The log head */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Log"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLogConsistency: {
        parameters: {
            query: {
                from: number;
                to: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proof and both roots */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsistencyProof"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listLogCheckpoints: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of anchored checkpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnchoredCheckpointPage"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listNamespaces: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
                /** @description only namespaces starting with this (leaves out the null namespace) */
                prefix?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of namespaces, sorted by name (null first) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespacePage"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOwnerConsistency: {
        parameters: {
            query: {
                from: number;
                to: number;
            };
            header?: never;
            path: {
                /** @description the owner's wallet public key, base58 (the commitment account's seed) */
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proof and both roots */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OwnerConsistencyProof"];
                };
            };
            /** @description invalid_request: a malformed owner or size, or not 1 ≤ from ≤ to ≤ the latest anchored size */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no user with this key, or a log never anchored */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOwnerCheckpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the owner's wallet public key, base58 (the commitment account's seed) */
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed checkpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description invalid_request: a malformed owner, or a query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: no user with this key, a log never anchored, or no log key configured */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description only memory events of exactly this namespace */
                namespace?: string;
                /** @description only memory events whose namespace starts with this */
                namespacePrefix?: string;
                /** @description resume after this event id (the `Last-Event-ID` header wins over it) */
                lastEventId?: string;
            };
            header?: {
                /** @description resume after this event id (sent by EventSource when it reconnects) */
                "last-event-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A `text/event-stream` (Server-Sent Events) that stays open. It starts with `retry: 3000` and `id: <position>` (no data: it only sets the client's last event id), then one message per event in ascending id order: `event: <type>`, `data: <JSON>`, `id: <event id>`, where `memory.created` carries `{ id, leafIndex, namespace, createdAt, supersedes }`, `memory.deleted` `{ id, leafIndex, namespace }` and `memory.anchored` `{ treeSize, rootHash, signature }`. A comment line (`: heartbeat`) comes every 15 s. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description invalid_request: a bad filter or event id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks memories:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential; too_many_streams: the credential already holds SSE_MAX_STREAMS_PER_CREDENTIAL streams */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JsonRpcMessage"] | components["schemas"]["JsonRpcMessage"][];
            };
        };
        responses: {
            /** @description The JSON-RPC response(s): the `initialize` result, the tool list, a tool's result (`content` of one JSON text; `isError` for a refusal such as `not_found`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"] | components["schemas"]["JsonRpcMessage"][];
                };
            };
            /** @description Accepted: the body held only notifications or responses */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request: not JSON-RPC 2.0 (or, from the MCP transport, a JSON-RPC error: an invalid message or protocol version) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not Acceptable (a JSON-RPC error): the Accept header must list application/json and text/event-stream */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listGrants: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of grants */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantPage"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createGrant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    operation: components["schemas"]["GrantOperation"];
                    /** @default 86400 */
                    expiresInSeconds?: number;
                    /** @default 1 */
                    maxUses?: number;
                    label?: string;
                };
            };
        };
        responses: {
            /** @description The grant, with its token and URL (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedGrant"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the credential lacks grants:write or a scope of the operation it delegates (memories:read) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: a named memory is not the caller's live memory */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    useGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description DELETE: the grant's id; GET: the grant's token (the capability URL's last segment) */
                grant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The granted memories, each with its proof bundle */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantUse"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found: unknown token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description method_not_allowed: HEAD (a use has a side effect) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description grant_revoked, grant_expired or grant_exhausted */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description DELETE: the grant's id; GET: the grant's token (the capability URL's last segment) */
                grant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listGrantAudit: {
        parameters: {
            query?: {
                limit?: number;
                /** @description the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated) */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantAttemptPage"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getStaking: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Balances from the chain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StakingPosition"];
                };
            };
            /** @description invalid_request: a malformed parameter or an unknown query parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description chain_unavailable (the chain RPC read failed) or staking_not_configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    prepareStake: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example 1000000000 */
                    amountLamports: string;
                };
            };
        };
        responses: {
            /** @description The transaction to sign, then POST to /staking/submit */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreparedStake"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description too_many_lots or insufficient_funds */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description chain_unavailable (the chain RPC read failed) or staking_not_configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    prepareUnstake: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The transaction to sign, then POST to /staking/submit */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreparedUnstake"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description nothing_matured */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description chain_unavailable (the chain RPC read failed) or staking_not_configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    submitStakingTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Solana legacy transaction, base64 wire format */
                    transaction: string;
                };
            };
        };
        responses: {
            /** @description Confirmed on chain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmittedTransaction"];
                };
            };
            /** @description invalid_request or invalid_transaction */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no bearer token, or one that is unknown, revoked or expired */
            401: {
                headers: {
                    /** @description `Bearer` without a token, `Bearer error="invalid_token"` for a token that failed */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description nothing_matured, too_many_lots, insufficient_funds, blockhash_expired or transaction_failed */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 256 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests with this credential */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description chain_unavailable (the chain RPC read failed) or staking_not_configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCheckpointLogConsistency: {
        parameters: {
            query: {
                from: number;
                to: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proof and both roots */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointLogConsistencyProof"];
                };
            };
            /** @description invalid_request: a missing, non-decimal or zero size, an unknown query parameter, from > to (details path from), or to past the latest signed size (details path to) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: too many requests from this client IP */
            429: {
                headers: {
                    /** @description Seconds to wait before the limit admits another request (at least 1) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal: an unexpected failure (no detail; the request id is in the message) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
