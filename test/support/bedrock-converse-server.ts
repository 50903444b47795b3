import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { blockStopReason } from './anthropic-messages-server.js';
import { vectorFor } from './openai-compatible-server.js';
import { argumentsObject, LoopbackServer, replyObject, ScriptedServer, sendJson } from './scripted-model.js';
import { verifySigV4, type KnownKey } from './sigv4-verifier.js';

type Json = Record<string, any>;

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const textOf = (blocks: Json[]): string =>
  blocks
    .filter((b) => typeof b.text === 'string')
    .map((b) => b.text)
    .join('');

/** What Converse refuses about a request's shape, or undefined. */
function shapeProblem(modelId: string, body: Json): string | undefined {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'A conversation must start with a user message.';
  const tools = body.toolConfig?.tools ?? [];
  const choice = body.toolConfig?.toolChoice;
  if (choice?.tool && !modelId.includes('anthropic.'))
    return "This model doesn't support the toolConfig.toolChoice.tool field. Remove toolConfig.toolChoice.tool and try again.";
  if (choice?.tool && !tools.some((t: Json) => t.toolSpec?.name === choice.tool.name))
    return 'The tool named in toolConfig.toolChoice is not in toolConfig.tools.';
  if (body.inferenceConfig?.maxTokens !== undefined && !(body.inferenceConfig.maxTokens >= 1)) return 'inferenceConfig.maxTokens must be at least 1';
  const usesTools = body.messages.some((m: Json) => (m.content ?? []).some((b: Json) => b.toolUse || b.toolResult));
  if (usesTools && tools.length === 0) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  let pending: string[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (m.role !== (i % 2 === 0 ? 'user' : 'assistant')) return 'A conversation must alternate between user and assistant roles.';
    const blocks: Json[] = m.content ?? [];
    if (blocks.length === 0) return `The content field in the Message object at messages.${i} is empty.`;
    if (blocks.some((b) => typeof b.text === 'string' && !b.text.trim())) return `The text field in the ContentBlock object at messages.${i} is blank.`;
    const results = blocks.filter((b) => b.toolResult).map((b) => b.toolResult.toolUseId);
    if (m.role === 'user') {
      if (pending.some((id) => !results.includes(id)) || results.some((id: string) => !pending.includes(id))) {
        return 'The number of toolResult blocks at messages.' + i + ' exceeds or does not match the number of toolUse blocks of previous turn.';
      }
      pending = [];
    } else pending = blocks.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId);
  }
  return undefined;
}

/** A Converse request in the neutral shape scripts read (see Script). */
export function neutralFromConverse(modelId: string, body: Json): Json {
  const messages: Json[] = [];
  const system = textOf(body.system ?? []);
  if (system) messages.push({ role: 'system', content: system });
  for (const m of body.messages ?? []) {
    const blocks: Json[] = m.content ?? [];
    if (m.role === 'user') {
      for (const b of blocks.filter((x) => x.toolResult))
        messages.push({ role: 'tool', tool_call_id: b.toolResult.toolUseId, content: textOf(b.toolResult.content ?? []) });
      const text = textOf(blocks);
      if (text) messages.push({ role: 'user', content: text });
    } else {
      const calls = blocks
        .filter((b) => b.toolUse)
        .map((b) => ({ id: b.toolUse.toolUseId, type: 'function', function: { name: b.toolUse.name, arguments: JSON.stringify(b.toolUse.input) } }));
      messages.push({ role: 'assistant', content: textOf(blocks) || null, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  const specs: Json[] = (body.toolConfig?.tools ?? []).map((t: Json) => t.toolSpec);
  const forced = body.toolConfig?.toolChoice?.tool ? specs.find((s) => s.name === body.toolConfig.toolChoice.tool.name) : undefined;
  const tools = specs
    .filter((s) => s !== forced)
    .map((s) => ({ type: 'function', function: { name: s.name, description: s.description, parameters: s.inputSchema?.json } }));
  return {
    model: modelId,
    messages,
    ...(tools.length ? { tools } : {}),
    ...(forced ? { response_format: { type: 'json_schema', json_schema: { name: forced.name, schema: forced.inputSchema?.json } } } : {}),
    max_tokens: body.inferenceConfig?.maxTokens,
  };
}

/**
 * Amazon Bedrock runtime: Converse (`POST /model/{modelId}/converse`) and
 * InvokeModel for Titan and Cohere embeddings (`POST /model/{modelId}/invoke`).
 * Every request must carry a valid SigV4 signature (service bedrock, the
 * region) by a key in `keys`: a static pair, or temporary keys the STS
 * stand-in issued, with their session token. Errors as Bedrock sends them
 * (x-amzn-ErrorType header, { message } body). The request shape is checked
 * as Converse does; a forced tool (toolChoice.tool, Anthropic models only)
 * is answered with a toolUse carrying the scripted JSON answer.
 */
export class BedrockConverseServer extends ScriptedServer {
  readonly region = 'us-east-1';
  /** Keys whose signatures are accepted; the static pair below is one of them. */
  readonly keys = new Map<string, KnownKey>();
  readonly accessKeyId = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  readonly secretAccessKey = randomBytes(30).toString('base64');
  readonly models = new Set(['anthropic.claude-test-v1:0', 'meta.llama-test-v1:0', 'amazon.titan-embed-text-v2:0', 'cohere.embed-english-v3']);
  /** Raw requests (path, headers, body), signature refusals included. */
  readonly raw: { path: string; headers: http.IncomingHttpHeaders; body: Json | undefined }[] = [];
  embeddingDimension = 64;
  private readonly http = new LoopbackServer((req, body, res) => this.handle(req, body, res));
  url = '';

  static async start(): Promise<BedrockConverseServer> {
    const s = new BedrockConverseServer();
    s.keys.set(s.accessKeyId, { secretAccessKey: s.secretAccessKey });
    await s.http.listen();
    s.url = `http://127.0.0.1:${s.http.port}`;
    return s;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private handle(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): void {
    const requestId = randomBytes(16).toString('hex');
    let delayMs = 0;
    const error = (status: number, type: string, message: string, extra: Record<string, string> = {}) =>
      sendJson(res, status, { message }, delayMs, {
        'x-amzn-ErrorType': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        'x-amzn-RequestId': requestId,
        ...extra,
      });
    let body: Json | undefined;
    try {
      body = raw.length ? (JSON.parse(raw.toString('utf8')) as Json) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '').split('?')[0];
    this.raw.push({ path, headers: req.headers, body });
    const denied = verifySigV4(req, raw, this.keys, { region: this.region, service: 'bedrock' });
    if (denied) return error(denied.status, denied.type, denied.message);
    const m = /^\/model\/([^/]+)\/(converse|invoke)$/.exec(path);
    if (req.method !== 'POST' || !m) return error(404, 'UnknownOperationException', 'Unknown operation');
    const modelId = decodeURIComponent(m[1]);
    if (!this.models.has(modelId)) return error(404, 'ResourceNotFoundException', 'Model not found.');
    if (!body) return error(400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    if (m[2] === 'invoke') return this.invoke(modelId, body, res, error);
    const problem = shapeProblem(modelId, body);
    if (problem) return error(400, 'ValidationException', problem);
    const reply = this.model.next(neutralFromConverse(modelId, body));
    if (reply.hang) return;
    delayMs = reply.delayMs ?? 0;
    if (reply.status) return error(reply.status, ERROR_TYPES[reply.status] ?? 'InternalServerException', reply.error?.message ?? 'error');
    const n = this.requests.length;
    const forced = body.toolConfig?.toolChoice?.tool?.name as string | undefined;
    const answer = forced ? replyObject(reply) : undefined;
    const content: Json[] = answer
      ? [{ toolUse: { toolUseId: `tooluse_${n}_answer`, name: forced, input: answer } }]
      : [
          ...(reply.content ? [{ text: reply.content }] : []),
          ...(reply.toolCalls ?? []).map((c, i) => ({
            toolUse: { toolUseId: c.id ?? `tooluse_${n}_${i}`, name: c.name, input: argumentsObject(c.arguments) },
          })),
        ];
    const usage = reply.usage ?? { prompt: 10, completion: 5 };
    const input = usage.prompt - (usage.cached ?? 0) - (usage.cacheWrite ?? 0);
    sendJson(
      res,
      200,
      {
        output: { message: { role: 'assistant', content } },
        stopReason: blockStopReason(
          reply,
          content.some((b) => b.toolUse),
        ),
        usage: {
          inputTokens: input,
          outputTokens: usage.completion,
          totalTokens: usage.prompt + usage.completion,
          cacheReadInputTokens: usage.cached ?? 0,
          cacheWriteInputTokens: usage.cacheWrite ?? 0,
        },
        metrics: { latencyMs: 1 },
      },
      delayMs,
      { 'x-amzn-RequestId': requestId },
    );
  }

  private invoke(modelId: string, body: Json, res: http.ServerResponse, error: (status: number, type: string, message: string) => void): void {
    if (modelId.startsWith('cohere.')) {
      if (!Array.isArray(body.texts) || body.texts.length === 0 || body.texts.length > 96 || typeof body.input_type !== 'string') {
        return error(400, 'ValidationException', 'Malformed input request: texts (1 to 96) and input_type are required');
      }
      return sendJson(res, 200, {
        id: randomBytes(8).toString('hex'),
        response_type: 'embeddings_floats',
        texts: body.texts,
        embeddings: body.texts.map((t: string) => vectorFor(t, this.embeddingDimension)),
      });
    }
    if (typeof body.inputText !== 'string' || !body.inputText) return error(400, 'ValidationException', 'Malformed input request: inputText is required');
    sendJson(res, 200, { embedding: vectorFor(body.inputText, this.embeddingDimension), inputTextTokenCount: body.inputText.split(/\s+/).length });
  }
}
