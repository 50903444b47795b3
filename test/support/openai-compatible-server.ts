import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
}

export interface OpenAiServerOptions {
  /** Required bearer token; requests without it get 401. */
  apiKey?: string;
  /** Embedding length per model; unknown models get 404. Default { 'test-embed': 8 }. */
  models?: Record<string, number>;
}

export interface RecordedCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A deterministic unit-length vector for a text (the same text always maps to the same vector). */
export function vectorFor(text: string, dimension: number): number[] {
  const bytes: number[] = [];
  for (let i = 0; bytes.length < dimension; i++) bytes.push(...createHash('sha256').update(`${i}:${text}`).digest());
  const v = bytes.slice(0, dimension).map((b) => b - 127.5);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => Math.fround(x / norm));
}

function base64Floats(v: readonly number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

/**
 * What strict OpenAI-compatible servers answer to a request whose history
 * holds tool calls or tool results while it declares no `tools` (their chat
 * templates cannot render the calls without the functions): undefined when
 * the request is fine.
 */
export function toolHistoryWithoutTools(body: Record<string, unknown>): string | undefined {
  if (Array.isArray(body.tools) && body.tools.length > 0) return undefined;
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const index = messages.findIndex((m) => m?.role === 'tool' || (Array.isArray(m?.tool_calls) && m.tool_calls.length > 0));
  if (index === -1) return undefined;
  return `messages[${index}] has tool calls or a tool result, but the request declares no tools: send "tools" with a conversation that uses them`;
}

/**
 * An OpenAI-compatible server on 127.0.0.1 (port 0): POST /v1/embeddings
 * (float or base64 encoding, as the real API) and POST /v1/chat/completions.
 * Errors use OpenAI's `{error: {message, type, param, code}}` body. Hooks:
 * `ignoreEncodingFormat` (answer floats even when base64 was asked, like some
 * compatible servers), `transform` (rewrite vectors), `hang`, `chat`.
 */
export class OpenAiCompatibleServer {
  readonly calls: RecordedCall[] = [];
  hang = false;
  ignoreEncodingFormat = false;
  transform?: (vector: number[], text: string) => number[];
  /** Answers a chat request; default echoes the last message. */
  chat: (body: Record<string, unknown>) => ChatMessage = (body) => {
    const messages = (body.messages as ChatMessage[] | undefined) ?? [];
    return { role: 'assistant', content: `echo: ${messages.at(-1)?.content ?? ''}` };
  };
  private server?: http.Server;
  private readonly models: Record<string, number>;

  constructor(private readonly options: OpenAiServerOptions = {}) {
    this.models = options.models ?? { 'test-embed': 8 };
  }

  /** The base URL a client is given (its API root). */
  get baseURL(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private error(res: http.ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null): void {
    this.send(res, status, { error: { message, type, param, code } });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown>;
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      return this.error(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.calls.push({ path, headers: req.headers, body });
    if (this.hang) return;
    if (this.options.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return this.error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    if (req.method === 'POST' && path === '/v1/embeddings') return this.embeddings(res, body);
    if (req.method === 'POST' && path === '/v1/chat/completions') return this.completions(res, body);
    this.error(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error', null);
  }

  private embeddings(res: http.ServerResponse, body: Record<string, unknown>): void {
    const model = String(body.model ?? '');
    const dimension = this.models[model];
    if (dimension === undefined) {
      return this.error(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== 'string' || t === '')) {
      return this.error(res, 400, "'$.input' is invalid.", 'invalid_request_error', null, 'input');
    }
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      return this.error(res, 400, `Invalid value for 'encoding_format': '${String(format)}'.`, 'invalid_request_error', null, 'encoding_format');
    }
    const data = (input as string[]).map((text, index) => {
      const base = vectorFor(text, dimension);
      const v = this.transform ? this.transform(base, text) : base;
      const asBase64 = format === 'base64' && !this.ignoreEncodingFormat;
      return { object: 'embedding', index, embedding: asBase64 ? base64Floats(v) : v };
    });
    const tokens = (input as string[]).reduce((n, t) => n + t.split(/\s+/).length, 0);
    // answered in reverse order: clients must place embeddings by `index`
    this.send(res, 200, { object: 'list', data: data.reverse(), model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  private completions(res: http.ServerResponse, body: Record<string, unknown>): void {
    if (typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
      return this.error(res, 400, "'messages' is a required property", 'invalid_request_error', null, 'messages');
    }
    const refusal = toolHistoryWithoutTools(body);
    if (refusal) return this.error(res, 400, refusal, 'invalid_request_error', null, 'messages');
    const message = this.chat(body);
    const promptTokens = JSON.stringify(body.messages).length >> 2;
    const completionTokens = (message.content ?? '').length >> 2;
    this.send(res, 200, {
      id: `chatcmpl-${this.calls.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: message.tool_calls?.length ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  }
}
