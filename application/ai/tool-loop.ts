import { DomainError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult, TokenUsage, ToolSpec } from '../../domain/llm/llm-types.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { scrubSecretsInText, scrubSecretsInValue } from '../../domain/security/scrub-secrets.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { DeadlineReached, type BudgetLimit, type RunBudget } from './run-budget.js';
import { reportProgress } from '../runs/run-scope.js';

/** A function the model may call: its schema and what runs it. Built from read-only ports only. */
export interface ModelFunction {
  spec: ToolSpec;
  /** Which end of a result over the byte budget the model sees: `head` (default) or `tail` (logs, whose last lines matter). */
  keep?: 'head' | 'tail';
  /** Returns what the model sees (a string as is, anything else as JSON). Throwing reports the error to the model. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

export interface ToolLoopRequest {
  messages: ChatMessage[];
  functions: readonly ModelFunction[];
  budget: RunBudget;
  /** Model calls to leave unused for the steps after the loop (the structured answer and its retry). */
  reserveCalls?: number;
  options?: Omit<ChatOptions, 'tools' | 'signal'>;
}

export type LoopStop = 'final-answer' | BudgetLimit | 'provider-error';

export interface FunctionCallRecord {
  name: string;
  /** The model's arguments, cut to 500 characters. */
  arguments: string;
  ok: boolean;
  error?: string;
}

export interface ToolLoopResult {
  /** The last answer text ('' when the model only called functions). */
  text: string;
  stoppedBy: LoopStop;
  /** Model calls this loop made. */
  calls: number;
  functionCalls: FunctionCallRecord[];
  usage: TokenUsage;
  model: string;
  /** The whole conversation, for a follow-up call that asks for the structured answer. */
  messages: ChatMessage[];
  /** With `provider-error`: the provider's failure, already safe to show. */
  error?: string;
}

/** Bounds that keep the context a model is sent bounded over a whole run. */
export const LOOP_LIMITS = {
  /** Per function result, in bytes of UTF-8; the model is told when its result was cut. */
  resultBytes: 8192,
  /** All function results kept in the conversation; older ones are dropped first. */
  contextBytes: 160_000,
  /** Function calls run per model answer; the rest are answered with an error. */
  callsPerAnswer: 8,
  /** Longest arguments JSON a call may carry. */
  argumentChars: 8192,
  /** Answer text kept in the conversation between calls. */
  answerChars: 4000,
} as const;

const DROPPED = '{"note":"svc dropped this earlier result to keep the conversation bounded; call the function again if you need it"}';

/**
 * The function-calling loop over `LlmProvider.chat`, inside a `tool_loop <model>`
 * span. It stops on an answer without function calls, or when the run's budget
 * says so (model calls, tokens, deadline), or when the provider fails after the
 * first call (what was found so far is kept). Everything the model sends is
 * untrusted: unknown functions, malformed or oversized arguments and too many
 * calls are answered with an error for the model, never executed.
 */
export async function runToolLoop(llm: LlmProvider, tracer: Tracer, request: ToolLoopRequest): Promise<ToolLoopResult> {
  const byName = new Map(request.functions.map((f) => [f.spec.name, f]));
  if (byName.size !== request.functions.length) throw new ValidationError('Duplicate function name in a tool loop');
  const model = llm.status().model ?? 'unknown';
  return tracer.inChildSpan(
    `tool_loop ${model}`,
    { 'gen_ai.operation.name': 'tool_loop', 'gen_ai.provider.name': llm.status().provider, 'gen_ai.request.model': model },
    async (span) => {
      const result = await loop(llm, request, byName);
      span.setAttributes({
        'gen_ai.usage.input_tokens': result.usage.inputTokens,
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
        'gen_ai.usage.cache_read_tokens': result.usage.cacheReadTokens,
        'gen_ai.usage.cache_creation_tokens': result.usage.cacheCreationTokens,
        'gen_ai.response.model': result.model || undefined,
        'svc.tool_loop.calls': result.calls,
        'svc.tool_loop.stopped_by': result.stoppedBy,
      });
      return result;
    },
  );
}

async function loop(llm: LlmProvider, request: ToolLoopRequest, byName: Map<string, ModelFunction>): Promise<ToolLoopResult> {
  const { budget } = request;
  const reserve = request.reserveCalls ?? 0;
  const tools = request.functions.map((f) => f.spec);
  const messages: ChatMessage[] = [...request.messages];
  const records: FunctionCallRecord[] = [];
  const startUsage = budget.usage;
  const startCalls = budget.calls;
  let text = '';
  let model = '';
  const done = (stoppedBy: LoopStop, error?: string): ToolLoopResult => ({
    text,
    stoppedBy,
    calls: budget.calls - startCalls,
    functionCalls: records,
    usage: diff(budget.usage, startUsage),
    model,
    messages,
    ...(error ? { error } : {}),
  });

  for (;;) {
    const limit = budget.exhausted() ?? (budget.remainingCalls <= reserve ? 'model-calls' : undefined);
    if (limit) return done(limit);
    let answer: ChatResult;
    try {
      answer = await budget.race(llm.chat(messages, { ...request.options, tools, signal: budget.signal }));
    } catch (e) {
      budget.recordFailedCall();
      if (e instanceof DeadlineReached || budget.signal.aborted) return done('deadline');
      // not configured, or a bug of ours: never a partial result
      if (e instanceof NotConfiguredError || e instanceof ValidationError || !(e instanceof DomainError)) throw e;
      if (budget.calls - startCalls === 1) throw e; // nothing found yet
      return done('provider-error', e.message);
    }
    budget.record(answer.usage);
    model = answer.model;
    text = answer.text.slice(0, LOOP_LIMITS.answerChars);
    if (answer.toolCalls.length === 0) return done('final-answer');
    messages.push({ role: 'assistant', content: text, toolCalls: answer.toolCalls });
    for (const [index, call] of answer.toolCalls.entries()) {
      const args = call.arguments.slice(0, 500);
      let content: string;
      try {
        reportProgress('function-call', { name: call.name.slice(0, 64) });
        content = cut(await runCall(byName, call, index, budget), byName.get(call.name)?.keep);
        records.push({ name: call.name.slice(0, 64), arguments: args, ok: true });
      } catch (e) {
        if (e instanceof DeadlineReached) return done('deadline');
        const error = scrubSecretsInText(e instanceof Error ? e.message : String(e)).slice(0, 1000);
        content = JSON.stringify({ error });
        records.push({ name: call.name.slice(0, 64), arguments: args, ok: false, error });
      }
      messages.push({ role: 'tool', toolCallId: call.id, content });
    }
    keepContextBounded(messages);
  }
}

async function runCall(byName: Map<string, ModelFunction>, call: ChatResult['toolCalls'][number], index: number, budget: RunBudget): Promise<string> {
  if (index >= LOOP_LIMITS.callsPerAnswer)
    throw new Error(`too many function calls in one answer (at most ${LOOP_LIMITS.callsPerAnswer}); call the rest again`);
  const fn = byName.get(call.name);
  if (!fn) throw new Error(`unknown function ${JSON.stringify(call.name.slice(0, 64))}; available: ${[...byName.keys()].join(', ')}`);
  if (call.arguments.length > LOOP_LIMITS.argumentChars) throw new Error(`arguments too long (at most ${LOOP_LIMITS.argumentChars} characters)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments.trim() === '' ? '{}' : call.arguments);
  } catch (e) {
    throw new Error(`invalid arguments JSON: ${(e as Error).message.slice(0, 200)}`, { cause: e });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('invalid arguments JSON: arguments must be a JSON object');
  const result = await budget.race(fn.run(parsed as Record<string, unknown>, budget.signal));
  // what the cluster holds goes to a third party: no credential in it reaches the provider
  return typeof result === 'string' ? scrubSecretsInText(result) : JSON.stringify(scrubSecretsInValue(result ?? null));
}

const NOTE_BYTES = 200;
const ASK_LESS = 'ask for less (a fieldPath, a narrower selector, a namespace, fewer log lines)';

/** A result over the byte budget keeps one end (its head, or its tail for logs) and says it was cut, so the model can ask for less. */
export function cut(content: string, keep: 'head' | 'tail' = 'head'): string {
  const bytes = Buffer.byteLength(content);
  if (bytes <= LOOP_LIMITS.resultBytes) return content;
  const all = Buffer.from(content);
  const room = LOOP_LIMITS.resultBytes - NOTE_BYTES;
  if (keep === 'tail') {
    let tail = all
      .subarray(bytes - room)
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
    // start at a whole line when one starts near the cut
    const newline = tail.indexOf('\n');
    if (newline !== -1 && newline < 1000) tail = tail.slice(newline + 1);
    return `[svc: result cut from ${bytes} to its last ${Buffer.byteLength(tail)} bytes; ${ASK_LESS}]\n${tail}`;
  }
  const head = all
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}\n[svc: result cut from ${bytes} to ${Buffer.byteLength(head)} bytes; ${ASK_LESS}]`;
}

/** Drops the oldest function results once all of them together pass the context budget. */
function keepContextBounded(messages: ChatMessage[]): void {
  let total = 0;
  for (const m of messages) if (m.role === 'tool') total += m.content.length;
  for (const m of messages) {
    if (total <= LOOP_LIMITS.contextBytes) return;
    if (m.role === 'tool' && m.content !== DROPPED) {
      total -= m.content.length - DROPPED.length;
      m.content = DROPPED;
    }
  }
}

function diff(now: TokenUsage, before: TokenUsage): TokenUsage {
  return {
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    cacheReadTokens: now.cacheReadTokens - before.cacheReadTokens,
    cacheCreationTokens: now.cacheCreationTokens - before.cacheCreationTokens,
  };
}
