import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

/** One scripted answer: a message (text and/or tool calls) or an HTTP error. Provider-neutral: each stand-in puts it in its wire format. */
export interface ChatReply {
  content?: string | null;
  toolCalls?: { name: string; arguments: string; id?: string }[];
  /** Port-level counts: `prompt` includes cached and cache-written tokens. */
  usage?: { prompt: number; completion: number; cached?: number; cacheWrite?: number };
  status?: number;
  error?: { message: string; type?: string; code?: string };
  /** With `status`: a retry-after header, seconds. */
  retryAfter?: number;
  /** OpenAI words ('stop', 'length', 'tool_calls'), or a provider's own stop reason ('refusal', 'max_tokens'). */
  finishReason?: string;
  /** Never answer (the client's timeout or abort ends the request). */
  hang?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
}

/**
 * A script reads the request in the neutral (OpenAI chat completions) shape:
 * `messages` with system/user/assistant(tool_calls)/tool roles, `tools` as
 * functions, and `response_format.json_schema` for a schema-checked answer
 * (whatever the provider's way of asking for one, such as a forced tool).
 */
export type Script = ChatReply | ((request: Json) => ChatReply);

/** The queue of scripted answers every model stand-in plays, and the requests it saw (neutral shape). */
export class ScriptedModel {
  readonly requests: Json[] = [];
  private readonly queue: Script[] = [];
  /** Answers once the script is used up (default: "ok"). */
  fallback: Script = { content: 'ok' };

  script(...replies: Script[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Records the neutral request and says what to answer. */
  next(neutral: Json): ChatReply {
    this.requests.push(neutral);
    const next = this.queue.shift() ?? this.fallback;
    return typeof next === 'function' ? next(neutral) : next;
  }
}

/** What every scripted stand-in server offers a test: its script, its fallback and the neutral requests it saw. */
export abstract class ScriptedServer {
  readonly model = new ScriptedModel();
  /** Neutral request bodies, in order. */
  readonly requests: Json[] = this.model.requests;

  get fallback(): Script {
    return this.model.fallback;
  }
  set fallback(s: Script) {
    this.model.fallback = s;
  }

  script(...replies: Script[]): this {
    this.model.script(...replies);
    return this;
  }

  abstract close(): Promise<void>;
}

/** A loopback HTTP server on port 0 that buffers each request body, for the stand-ins. */
export class LoopbackServer {
  readonly server: http.Server;
  port = 0;

  constructor(handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handle(req, Buffer.concat(chunks), res));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes a JSON answer, after the reply's delay; nothing when the client has gone. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, delayMs = 0, headers: Record<string, string> = {}): void {
  const write = () => {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  if (delayMs > 0) setTimeout(write, delayMs);
  else write();
}

/** A reply's JSON answer when it is one JSON object (what a model forced to the answer tool gives as the tool's input). */
export function replyObject(reply: ChatReply): Record<string, unknown> | undefined {
  if (typeof reply.content !== 'string' || reply.toolCalls?.length) return undefined;
  try {
    const v: unknown = JSON.parse(reply.content);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Tool-call arguments as the object a block API carries (a malformed one as an object holding the raw text). */
export function argumentsObject(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // a model's malformed arguments: carried whole so the adapter passes something invalid on
  }
  return { __raw: raw };
}
