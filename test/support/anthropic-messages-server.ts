import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { argumentsObject, LoopbackServer, replyObject, ScriptedServer, sendJson, type ChatReply } from './scripted-model.js';

type Json = Record<string, any>;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const blocksOf = (content: unknown): Json[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);
const textOf = (blocks: Json[]): string =>
  blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');

/** What the Messages API refuses about a request's shape (the rules an adapter's mapping must keep), or undefined. */
function shapeProblem(body: Json): string | undefined {
  if (typeof body.model !== 'string') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const toolNames = new Set((body.tools ?? []).map((t: Json) => t.name));
  if (body.tool_choice?.type === 'tool' && !toolNames.has(body.tool_choice.name)) return `tool_choice.name: tool '${body.tool_choice.name}' not found in tools`;
  for (const t of body.tools ?? []) if (t.input_schema?.type !== 'object') return `tools.${t.name}.input_schema.type: Input should be 'object'`;
  const usesTools = body.messages.some((m: Json) => blocksOf(m.content).some((b) => b.type === 'tool_use' || b.type === 'tool_result'));
  if (usesTools && toolNames.size === 0) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  let pending: string[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (m.role !== (i % 2 === 0 ? 'user' : 'assistant')) return `messages.${i}.role: roles must alternate between "user" and "assistant", starting with "user"`;
    const blocks = blocksOf(m.content);
    if (blocks.length === 0) return `messages.${i}: all messages must have non-empty content`;
    for (const b of blocks) if (b.type === 'text' && !String(b.text).trim()) return `messages.${i}: text content blocks must contain non-whitespace text`;
    const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    if (m.role === 'user') {
      if (pending.some((id) => !results.includes(id)) || results.some((id) => !pending.includes(id))) {
        return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${pending.join(', ')}`;
      }
      pending = [];
    } else {
      pending = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
    }
  }
  return undefined;
}

/** A Messages request in the neutral shape scripts read (see Script). */
export function neutralFromMessages(body: Json): Json {
  const messages: Json[] = [];
  const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? textOf(body.system) : '';
  if (system) messages.push({ role: 'system', content: system });
  for (const m of body.messages ?? []) {
    const blocks = blocksOf(m.content);
    if (m.role === 'user') {
      for (const b of blocks.filter((x) => x.type === 'tool_result')) {
        messages.push({ role: 'tool', tool_call_id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : textOf(b.content ?? []) });
      }
      const text = textOf(blocks);
      if (text) messages.push({ role: 'user', content: text });
    } else {
      const calls = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } }));
      messages.push({ role: 'assistant', content: textOf(blocks) || null, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  const forced = body.tool_choice?.type === 'tool' ? (body.tools ?? []).find((t: Json) => t.name === body.tool_choice.name) : undefined;
  const tools = (body.tools ?? [])
    .filter((t: Json) => t !== forced)
    .map((t: Json) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  return {
    model: body.model,
    messages,
    ...(tools.length ? { tools } : {}),
    ...(forced ? { response_format: { type: 'json_schema', json_schema: { name: forced.name, schema: forced.input_schema } } } : {}),
    max_tokens: body.max_tokens,
  };
}

/** The stop reason a reply's finish reason stands for, in the block APIs' words. */
export function blockStopReason(reply: ChatReply, usedTool: boolean): string {
  switch (reply.finishReason) {
    case undefined:
      return usedTool ? 'tool_use' : 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'stop':
      return 'end_turn';
    default:
      return reply.finishReason;
  }
}

/**
 * Anthropic's Messages API (`POST /v1/messages`, non-streaming JSON): the
 * key (only as `x-api-key`: 401 authentication_error without it, as the real
 * API answers) and the anthropic-version header checked, Anthropic's error bodies
 * ({ type: 'error', error: { type, message } }) and request-id header, the
 * request shape checked as the API does (alternating roles, tool_result for
 * every tool_use, non-empty text, max_tokens), retry-after on 429/529. A
 * forced tool (tool_choice type tool) is answered with a tool_use block
 * carrying the scripted JSON answer, or with text when the script's answer
 * is not a JSON object (a model ignoring the instruction).
 */
export class AnthropicMessagesServer extends ScriptedServer {
  readonly apiKey = `sk-ant-test-${randomBytes(16).toString('hex')}`;
  readonly models = new Set(['claude-test', 'other-model']);
  /** Raw Messages request bodies and their headers, in order. */
  readonly raw: { body: Json; headers: http.IncomingHttpHeaders }[] = [];
  private readonly http = new LoopbackServer((req, body, res) => this.handle(req, body, res));
  baseUrl = '';

  static async start(): Promise<AnthropicMessagesServer> {
    const s = new AnthropicMessagesServer();
    await s.http.listen();
    s.baseUrl = `http://127.0.0.1:${s.http.port}`;
    return s;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private handle(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): void {
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    let delayMs = 0;
    const error = (status: number, message: string, extra: Record<string, string> = {}) =>
      sendJson(res, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: requestId }, delayMs, {
        'request-id': requestId,
        ...extra,
      });
    if (req.method !== 'POST' || req.url !== '/v1/messages') return error(404, `Not found: ${req.method} ${req.url}`);
    // an API key is accepted only as x-api-key, as the real API does: a bearer Authorization is not a key
    const given = req.headers['x-api-key'];
    if (given === undefined) return error(401, 'x-api-key header is required');
    if (given !== this.apiKey) return error(401, 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return error(400, 'anthropic-version: header is required');
    let body: Json;
    try {
      body = JSON.parse(raw.toString('utf8')) as Json;
    } catch {
      return error(400, 'There was an error parsing the body of your request');
    }
    this.raw.push({ body, headers: req.headers });
    const problem = shapeProblem(body);
    if (problem) return error(400, problem);
    if (!this.models.has(body.model)) return error(404, `model: ${body.model}`);
    const reply = this.model.next(neutralFromMessages(body));
    if (reply.hang) return;
    delayMs = reply.delayMs ?? 0;
    if (reply.status)
      return error(reply.status, reply.error?.message ?? 'error', reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {});
    const n = this.requests.length;
    const forced = body.tool_choice?.type === 'tool' ? (body.tool_choice.name as string) : undefined;
    const answer = forced ? replyObject(reply) : undefined;
    const content: Json[] = answer
      ? [{ type: 'tool_use', id: `toolu_${n}_answer`, name: forced, input: answer }]
      : [
          ...(reply.content ? [{ type: 'text', text: reply.content, citations: null }] : []),
          ...(reply.toolCalls ?? []).map((c, i) => ({ type: 'tool_use', id: c.id ?? `toolu_${n}_${i}`, name: c.name, input: argumentsObject(c.arguments) })),
        ];
    const usage = reply.usage ?? { prompt: 10, completion: 5 };
    sendJson(
      res,
      200,
      {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: `${body.model}-20260101`,
        content,
        stop_reason: blockStopReason(
          reply,
          content.some((b) => b.type === 'tool_use'),
        ),
        stop_sequence: null,
        usage: {
          input_tokens: usage.prompt - (usage.cached ?? 0) - (usage.cacheWrite ?? 0),
          output_tokens: usage.completion,
          cache_read_input_tokens: usage.cached ?? 0,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
          service_tier: 'standard',
        },
      },
      delayMs,
      { 'request-id': requestId },
    );
  }
}
