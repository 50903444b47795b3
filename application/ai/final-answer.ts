import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { askStructured, type StructuredRequest } from './structured-chat.js';
import { render, type Template } from './template.js';
import type { ToolLoopResult } from './tool-loop.js';
import { transcript } from './transcript.js';

/** The model's own closing text kept from a loop. */
export const FINDINGS_CHARS = 2000;

/** What a tool loop leaves for the structured step, as data for its template. */
export interface LoopRecord {
  /** Every function call with its arguments and result (transcript.ts). */
  investigation: string;
  /** The model's last text at the end of the loop, when it wrote any. */
  findings?: string;
}

export function loopRecord(loop: ToolLoopResult): LoopRecord {
  const findings = loop.text.trim().slice(0, FINDINGS_CHARS);
  return { investigation: transcript(loop), ...(findings ? { findings } : {}) };
}

export interface FinalAnswerRequest<D, T> extends Omit<StructuredRequest<T>, 'messages'> {
  loop: ToolLoopResult;
  /** Its instructions say the calls were made and are given as data; its data include the loop record. */
  template: Template<D & LoopRecord>;
  data: D;
}

/**
 * The structured answer at the end of a tool loop, asked in a fresh
 * conversation: [system, user], the loop's calls and results as a data block,
 * and no tool messages. Some OpenAI-compatible servers refuse tool calls in a
 * history when the request declares no `tools` (and a structured-answer
 * request must not offer functions), and some chat templates want strictly
 * alternating roles. Every use case that asks for a final answer after a loop
 * goes through here.
 */
export function askFinalAnswer<D, T>(llm: LlmProvider, request: FinalAnswerRequest<D, T>): Promise<T> {
  const { loop, template, data, ...structured } = request;
  return askStructured(llm, { ...structured, messages: render(template, { ...data, ...loopRecord(loop) }) });
}
