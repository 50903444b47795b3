import type { SolutionState } from '../../domain/deployment/solution.js';
import { QUESTION_STAGES } from '../../domain/deployment/question.js';
import type { ToolContext } from '../tool-handler.js';

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
/** An answer or an intent shown inside a code span, so markdown in user text cannot restyle or link the page. */
const code = (v: unknown) =>
  `\`${String(Array.isArray(v) ? v.join(', ') : v)
    .replace(/`/g, "'")
    .replace(/\s+/g, ' ')
    .slice(0, 300)}\``;

/** The default commit message: the intent and the solution id. */
export function commitMessage(state: SolutionState, solutionId: string): string {
  return `svc: ${oneLine(state.intent, 60)}\n\nIntent: ${oneLine(state.intent, 2000)}\nSolution: ${solutionId}\n`;
}

/** Title and body of the pull request: the intent, the solution, the caller and the questions answered. */
export function pullRequestText(state: SolutionState, solutionId: string, files: readonly string[], context: ToolContext): { title: string; body: string } {
  const answered = QUESTION_STAGES.flatMap((stage) => Object.entries(state.answers[stage] ?? {}).map(([id, value]) => `- ${stage} \`${id}\`: ${code(value)}`));
  const body = [
    `**Intent:** ${code(state.intent)}`,
    '',
    `**Solution:** \`${solutionId}\`: ${code(state.solution.description)}`,
    '',
    `**Requested by:** ${code(context.caller.username)} through svc (request \`${context.requestId}\`)`,
    '',
    '**Questions answered:**',
    ...(answered.length ? answered : ['- none (the suggested defaults)']),
    '',
    '**Files:**',
    ...files.map((f) => `- \`${f}\``),
    '',
    'The manifests passed a server-side dry run against the cluster when svc generated them. Merging lets Argo CD or Flux apply them.',
  ].join('\n');
  return { title: `svc: ${oneLine(state.intent, 200)}`, body };
}
