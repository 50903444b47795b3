import type { ToolLoopResult } from './tool-loop.js';

/**
 * A tool loop's function calls and their results as plain text, for a
 * structured-answer step that starts a fresh conversation: [system, user]
 * only, with no tool messages (some OpenAI-compatible servers refuse tool
 * calls in a history when no `tools` are declared, and some chat templates
 * want strictly alternating roles). It goes to the model as a data block.
 * Its size follows the loop's own bounds (results cut, oldest dropped).
 */
export function transcript(loop: ToolLoopResult): string {
  const results = new Map<string, string>();
  for (const m of loop.messages) if (m.role === 'tool') results.set(m.toolCallId, m.content);
  const parts: string[] = [];
  let n = 0;
  for (const m of loop.messages) {
    if (m.role !== 'assistant') continue;
    if (m.content.trim()) parts.push(`(your note) ${m.content.trim()}`);
    for (const call of m.toolCalls ?? []) {
      n += 1;
      parts.push(`[call ${n}] ${call.name.slice(0, 64)} ${call.arguments.slice(0, 500)}\n${results.get(call.id) ?? '(no result)'}`);
    }
  }
  return parts.join('\n\n') || '(no function was called)';
}
