/**
 * The stdio server transport of `svc-mcp` (docs/protocol.md §4.9 "MCP"): newline-delimited
 * JSON-RPC on stdin/stdout as the MCP SDK's `StdioServerTransport` speaks it, except that every
 * line is checked by the strict JSON rules of docs/protocol.md §1.2 "Requests" (no key twice in one
 * object, exact numbers under `metadata`) before it is parsed, as `POST /mcp` checks its body.
 * The SDK's transport parses each line with `JSON.parse` itself, which keeps the last of two
 * duplicate keys and rounds `123456789012345678901234567890` silently, so the check could not
 * come after it.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import {
  deserializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { findStrictJsonRefusal, type StrictJsonRefusal } from "@verifiable-memory/memory-schemas";

/**
 * The JSON-RPC error answering a line the strict rules refuse (docs/protocol.md §4.9 "MCP"):
 * `-32602` (invalid params) when the offence lies under `params`, else `-32700` (parse error);
 * the message is the refusal's (`params.arguments.metadata.n: …`) and `data` is the §1.3 error
 * object `{ code: "invalid_request", message, details: [{ path, message }] }`, as `POST /mcp`
 * answers the same body with 400. The id is the line's own when it has a string or number `id`,
 * and left out otherwise, as the SDK's JSON-RPC error type has it.
 */
export function strictRefusalAnswer(line: string, refusal: StrictJsonRefusal): JSONRPCMessage {
  const parsed = JSON.parse(line) as unknown;
  const id =
    typeof parsed === "object" && parsed !== null && "id" in parsed ? parsed.id : undefined;
  return {
    jsonrpc: "2.0",
    ...(typeof id === "string" || typeof id === "number" ? { id } : {}),
    error: {
      code: refusal.path[0] === "params" ? ErrorCode.InvalidParams : ErrorCode.ParseError,
      message: refusal.text,
      data: {
        code: "invalid_request",
        message: refusal.text,
        details: [{ path: refusal.path, message: refusal.message }],
      },
    },
  };
}

/**
 * A server transport over a readable and a writable stream of newline-delimited JSON-RPC
 * messages: the MCP SDK's stdio framing (one message per line, a trailing `\r` dropped, at most
 * `maxBufferSize` bytes of unfinished input, default the SDK's 10 MiB), with the strict JSON check
 * of each line before it is parsed. A refused line is answered with {@link strictRefusalAnswer}
 * and never reaches the server; a line that is not a JSON-RPC message is reported to `onerror`,
 * as the SDK's transport does.
 */
export class StrictStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer: Buffer | undefined;
  private started = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  /**
   * Starts reading `stdin`.
   * @throws Error when already started (the SDK's `connect()` starts the transport).
   */
  async start(): Promise<void> {
    if (this.started) {
      throw new Error("StrictStdioServerTransport already started");
    }
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  /** Stops reading (pausing `stdin` when nothing else listens) and reports the close. */
  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) {
      this.stdin.pause();
    }
    this.buffer = undefined;
    this.onclose?.();
  }

  /** Writes `message` as one line; settles once `stdout` takes it (after `drain` if full). */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) {
        resolve();
      } else {
        this.stdout.once("drain", resolve);
      }
    });
  }

  private readonly onData = (chunk: Buffer): void => {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBufferSize) {
      this.buffer = undefined;
      this.onerror?.(new Error(`stdin buffer exceeded ${this.maxBufferSize} bytes`));
      void this.close();
      return;
    }
    this.buffer = this.buffer === undefined ? chunk : Buffer.concat([this.buffer, chunk]);
    for (let end = this.buffer.indexOf(10); end !== -1; end = this.buffer.indexOf(10)) {
      const line = this.buffer.toString("utf8", 0, end).replace(/\r$/, "");
      this.buffer = this.buffer.subarray(end + 1);
      this.receive(line);
    }
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** Checks, parses and hands on one line. */
  private receive(line: string): void {
    const refusal = findStrictJsonRefusal(line);
    if (refusal !== null) {
      this.send(strictRefusalAnswer(line, refusal)).catch((error: unknown) => {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      });
      return;
    }
    try {
      this.onmessage?.(deserializeMessage(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
