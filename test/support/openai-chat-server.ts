import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolHistoryWithoutTools, vectorFor } from './openai-compatible-server.js';
import { ScriptedServer, type ChatReply } from './scripted-model.js';

type Json = Record<string, any>;

export type { ChatReply, Script } from './scripted-model.js';

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint (non-streaming JSON):
 * bearer-key auth with OpenAI's 401 body, model lookup with its 404 body,
 * tool_calls, and usage with prompt_tokens_details. Like strict servers
 * (vLLM's and llama.cpp's chat templates, Bedrock's gateway) it refuses a
 * history with tool calls or tool results when the request declares no
 * `tools`. Answers come from a
 * queue of scripts, then `fallback`. `/v1/embeddings` answers deterministic
 * vectors (float encoding) for any model.
 */
export class OpenAiChatServer extends ScriptedServer {
  readonly apiKey = `sk-test-${randomBytes(16).toString('hex')}`;
  readonly models = new Set(['gpt-test', 'other-model']);
  /** Header sets of the chat requests, in order. */
  readonly headers: http.IncomingHttpHeaders[] = [];
  /** Length of the vectors `/v1/embeddings` answers with (any model). */
  embeddingDimension = 64;
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  baseUrl = '';

  static async start(): Promise<OpenAiChatServer> {
    const s = new OpenAiChatServer();
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.baseUrl = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/v1`;
    return s;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let delayMs = 0;
      const send = (status: number, body: unknown) => {
        const write = () => {
          if (res.destroyed) return;
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (delayMs > 0) setTimeout(write, delayMs);
        else write();
      };
      const error = (status: number, message: string, type: string, code: string | null) => send(status, { error: { message, type, param: null, code } });
      if (req.method === 'POST' && req.url === '/v1/embeddings' && req.headers.authorization === `Bearer ${this.apiKey}`) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        const input: string[] = typeof body.input === 'string' ? [body.input] : body.input;
        return send(200, {
          object: 'list',
          model: body.model,
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t, this.embeddingDimension) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return error(404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url');
      const auth = req.headers.authorization ?? '';
      // OpenAI's 401 quotes the key it got (partly masked); this one quotes it whole, to prove the adapter never echoes it
      if (auth !== `Bearer ${this.apiKey}`)
        return error(401, `Incorrect API key provided: ${auth.replace(/^Bearer /, '')}.`, 'invalid_request_error', 'invalid_api_key');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      this.headers.push(req.headers);
      if (!this.models.has(body.model)) {
        this.requests.push(body);
        return error(404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
      }
      const refusal = toolHistoryWithoutTools(body);
      if (refusal) {
        this.requests.push(body);
        return error(400, refusal, 'invalid_request_error', null);
      }
      const reply: ChatReply = this.model.next(body);
      if (reply.hang) return;
      delayMs = reply.delayMs ?? 0;
      if (reply.status) {
        if (reply.retryAfter !== undefined) res.setHeader('retry-after', String(reply.retryAfter));
        return send(reply.status, { error: { type: 'server_error', code: null, param: null, ...reply.error } });
      }
      const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_${this.requests.length}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      }));
      const usage = reply.usage ?? { prompt: 10, completion: 5 };
      send(200, {
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: `${body.model}-2026-01-01`,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.content ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
            logprobs: null,
            finish_reason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
          },
        ],
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
          prompt_tokens_details: {
            cached_tokens: usage.cached ?? 0,
            audio_tokens: 0,
            ...(usage.cacheWrite !== undefined ? { cache_write_tokens: usage.cacheWrite } : {}),
          },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      });
    });
  }
}
