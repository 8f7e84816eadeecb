/**
 * The Solana PubSub WebSocket subset that @solana/web3.js `confirmTransaction` relies on:
 * `signatureSubscribe` (one notification once the transaction is durable, then the subscription
 * ends; immediately if it already is), `slotSubscribe`, and their unsubscribes. Served on the RPC
 * port + 1, where `new Connection(url)` looks for it (the solana-test-validator convention).
 * Source: Solana RPC WebSocket methods (solana.com/docs/rpc/websocket); agave `rpc_pubsub.rs`.
 * @module
 */

import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import type { Chain } from "./chain.js";
import type { LedgerEntry } from "./ledger.js";
import { RpcError, RpcErrorCode } from "./rpc-error.js";
import { SLOT_MS } from "./slot-clock.js";

interface SignatureSubscription {
  readonly socket: WebSocket;
  readonly id: number;
  readonly signature: string;
}

/** A running PubSub endpoint; {@link PubSub.close} ends every subscription. */
export class PubSub {
  private nextId = 0;
  private readonly bySignature = new Map<string, SignatureSubscription[]>();
  private readonly slotSubscribers = new Map<number, WebSocket>();
  private slotTimer: NodeJS.Timeout | null = null;
  private readonly wss: WebSocketServer;
  private readonly unsubscribeChain: (() => void)[];

  /** Attaches the PubSub endpoint to `server` (an HTTP server listening on the RPC port + 1). */
  constructor(
    private readonly chain: Chain,
    server: Server,
  ) {
    this.wss = new WebSocketServer({ server });
    this.wss.on("connection", (socket) => this.accept(socket));
    this.unsubscribeChain = [
      chain.onTransaction((entry) => this.notifySignature(entry)),
      chain.onSlot((slot) => this.notifySlot(slot)),
    ];
  }

  private accept(socket: WebSocket): void {
    socket.on("message", (data) => {
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(String(data)) as typeof request;
      } catch {
        this.send(socket, {
          jsonrpc: "2.0",
          id: null,
          error: new RpcError(RpcErrorCode.parseError, "Parse error").toJSON(),
        });
        return;
      }
      this.handle(socket, request);
    });
    socket.on("close", () => this.drop(socket));
  }

  private handle(
    socket: WebSocket,
    request: { id?: unknown; method?: unknown; params?: unknown },
  ): void {
    const { id, method } = request;
    if (id === undefined) {
      return;
    }
    const params = Array.isArray(request.params) ? request.params : [];
    const reply = (result: unknown) => this.send(socket, { jsonrpc: "2.0", id, result });
    const fail = (error: RpcError) =>
      this.send(socket, { jsonrpc: "2.0", id, error: error.toJSON() });
    switch (method) {
      case "signatureSubscribe": {
        const signature = params[0];
        if (typeof signature !== "string") {
          fail(new RpcError(RpcErrorCode.invalidParams, "Invalid params: signature"));
          return;
        }
        const sub = { socket, id: this.nextId++, signature };
        reply(sub.id);
        const entry = this.chain.entry(signature);
        if (entry) {
          this.sendSignatureNotification(sub, entry);
        } else {
          const list = this.bySignature.get(signature) ?? [];
          list.push(sub);
          this.bySignature.set(signature, list);
        }
        return;
      }
      case "slotSubscribe": {
        const subId = this.nextId++;
        this.slotSubscribers.set(subId, socket);
        this.ensureSlotTimer();
        reply(subId);
        return;
      }
      case "signatureUnsubscribe":
      case "slotUnsubscribe": {
        const subId = params[0];
        const removed =
          typeof subId === "number" &&
          (method === "slotUnsubscribe"
            ? this.slotSubscribers.delete(subId)
            : this.removeSignatureSubscription(subId));
        if (removed) {
          reply(true);
        } else {
          fail(new RpcError(RpcErrorCode.invalidParams, "Invalid subscription id."));
        }
        this.stopSlotTimerIfIdle();
        return;
      }
      default:
        fail(new RpcError(RpcErrorCode.methodNotFound, "Method not found"));
    }
  }

  private removeSignatureSubscription(subId: number): boolean {
    for (const [signature, list] of this.bySignature) {
      const index = list.findIndex((s) => s.id === subId);
      if (index >= 0) {
        list.splice(index, 1);
        if (list.length === 0) {
          this.bySignature.delete(signature);
        }
        return true;
      }
    }
    return false;
  }

  private send(socket: WebSocket, message: unknown): void {
    if (socket.readyState === socket.OPEN) {
      socket.send(JSON.stringify(message));
    }
  }

  private sendSignatureNotification(sub: SignatureSubscription, entry: LedgerEntry): void {
    this.send(sub.socket, {
      jsonrpc: "2.0",
      method: "signatureNotification",
      params: {
        result: { context: { slot: entry.slot }, value: { err: entry.err } },
        subscription: sub.id,
      },
    });
  }

  private notifySignature(entry: LedgerEntry): void {
    const list = this.bySignature.get(entry.signature);
    if (!list) {
      return;
    }
    this.bySignature.delete(entry.signature);
    for (const sub of list) {
      this.sendSignatureNotification(sub, entry);
    }
  }

  private notifySlot(slot: number): void {
    for (const [subId, socket] of this.slotSubscribers) {
      this.send(socket, {
        jsonrpc: "2.0",
        method: "slotNotification",
        params: {
          result: { parent: Math.max(0, slot - 1), root: slot, slot },
          subscription: subId,
        },
      });
    }
  }

  private ensureSlotTimer(): void {
    if (!this.slotTimer) {
      this.slotTimer = setInterval(() => this.chain.tick(), SLOT_MS);
      this.slotTimer.unref();
    }
  }

  private stopSlotTimerIfIdle(): void {
    if (this.slotTimer && this.slotSubscribers.size === 0) {
      clearInterval(this.slotTimer);
      this.slotTimer = null;
    }
  }

  private drop(socket: WebSocket): void {
    for (const [subId, s] of this.slotSubscribers) {
      if (s === socket) {
        this.slotSubscribers.delete(subId);
      }
    }
    for (const [signature, list] of this.bySignature) {
      const kept = list.filter((sub) => sub.socket !== socket);
      if (kept.length === 0) {
        this.bySignature.delete(signature);
      } else {
        this.bySignature.set(signature, kept);
      }
    }
    this.stopSlotTimerIfIdle();
  }

  /** Client connections open now. */
  clients(): number {
    return this.wss.clients.size;
  }

  /** Closes every client connection and the WebSocket server. */
  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribeChain) {
      unsubscribe();
    }
    this.slotSubscribers.clear();
    this.stopSlotTimerIfIdle();
    for (const client of this.wss.clients) {
      client.terminate();
    }
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
