import { ValidationError } from '../errors.js';
import type { AnswerValue, Question, QuestionStage } from './question.js';
import { QUESTION_STAGES } from './question.js';
import type { SolutionState } from './solution.js';

export type DeploymentCall = 'recommend' | 'chooseSolution' | 'answerQuestion' | 'generateManifests' | 'deployManifests';

/** A call that may come next, with its parameters filled in (answers: the suggested defaults). */
export interface NextStep {
  tool: DeploymentCall;
  params: Record<string, unknown>;
  why: string;
}

/** The first stage not answered yet, or undefined when all four were answered or skipped. */
export function nextStage(state: SolutionState): QuestionStage | undefined {
  return QUESTION_STAGES.find((s) => state.answers[s] === undefined);
}

export function readyForManifests(state: SolutionState): boolean {
  return !!state.questions && state.answers.required !== undefined;
}

function suggested(questions: Question[]): Record<string, AnswerValue> {
  const out: Record<string, AnswerValue> = {};
  // Defaults as they are; a placeholder only where an answer is required and nothing can be suggested.
  for (const q of questions) {
    if (q.default !== undefined) out[q.id] = q.default;
    else if (q.validation.required) out[q.id] = `<${q.type}>`;
  }
  return out;
}

function answerStep(id: string, state: SolutionState, stage: QuestionStage): NextStep {
  const questions = state.questions![stage];
  const optional = stage !== 'required';
  return {
    tool: 'answerQuestion',
    params: { solutionId: id, stage, answers: stage === 'open' ? {} : suggested(questions) },
    why: `Answer the ${stage} questions${optional ? ' (optional: {} skips the stage)' : ''}`,
  };
}

/** Where a solution session stands, as the sessions listing shows it (the key set is the list of statuses). */
export const SOLUTION_STATUSES = {
  awaiting_choice: 'recommended; not chosen yet',
  answering: 'chosen; the required questions are not answered',
  ready_to_generate: 'answered; no manifests generated yet',
  manifests_generated: 'manifests generated; not deployed',
  delivered_to_git: 'the manifests were pushed to a git repository',
  deployed: 'deployed and ready',
  not_ready: 'deployed; not every object was ready when the deploy stopped waiting',
} as const;
export type SolutionStatus = keyof typeof SOLUTION_STATUSES;

export function solutionStatus(state: SolutionState): SolutionStatus {
  if (state.deployment) return state.deployment.ready ? 'deployed' : 'not_ready';
  if (state.manifests && state.gitDelivery) return 'delivered_to_git';
  if (state.manifests) return 'manifests_generated';
  if (readyForManifests(state)) return 'ready_to_generate';
  return state.questions ? 'answering' : 'awaiting_choice';
}

/** The calls that may come next, the recommended one first. */
export function nextSteps(id: string, state: SolutionState): NextStep[] {
  const generate: NextStep = { tool: 'generateManifests', params: { solutionId: id }, why: 'Generate the manifests from the solution and the answers' };
  if (!state.questions) return [{ tool: 'chooseSolution', params: { solutionId: id }, why: 'Choose this solution to get its configuration questions' }];
  const stage = nextStage(state);
  if (stage === 'required') return [answerStep(id, state, stage)];
  if (!state.manifests) return stage ? [answerStep(id, state, stage), generate] : [generate];
  // delivered through git: the GitOps controller applies it once merged, nothing is left to call
  if (!state.deployment && state.gitDelivery) return [];
  if (!state.deployment)
    return [{ tool: 'deployManifests', params: { solutionId: id, timeout: 30 }, why: 'Apply the manifests and wait until they are ready' }];
  if (state.deployment.ready) return [];
  const again: NextStep = {
    tool: 'deployManifests',
    params: { solutionId: id, timeout: 120 },
    why: 'Deploy again (idempotent) and wait longer for the pending objects',
  };
  const outcomes = state.deployment.outcomes ?? [];
  const created = outcomes.filter((o) => o.outcome === 'created' && o.ledgerId).length;
  if (state.deployment.cleanup || !created || !outcomes.some((o) => o.outcome === 'failed')) return [again];
  return [
    again,
    { tool: 'deployManifests', params: { solutionId: id, cleanup: true }, why: `Delete the ${created} object(s) this failed deploy created, and nothing else` },
  ];
}

function outOfOrder(call: DeploymentCall, what: string, id: string, state: SolutionState, unblocks?: DeploymentCall): ValidationError {
  const steps = nextSteps(id, state);
  const next = steps.find((s) => s.tool === unblocks) ?? steps[0];
  const stage = next && next.tool === 'answerQuestion' ? ` with stage "${String(next.params.stage)}"` : '';
  return new ValidationError(`${call} cannot run yet: ${what}. Next call: ${next ? `${next.tool}${stage}` : 'none'}`, { nextCall: next });
}

/** Refuses a call that comes before its stage (400, naming the call that comes next). */
export function assertCallAllowed(call: DeploymentCall, id: string, state: SolutionState, stage?: QuestionStage): void {
  if (call === 'chooseSolution' || call === 'recommend') return;
  if (!state.questions) throw outOfOrder(call, 'the solution has not been chosen', id, state);
  if (call === 'answerQuestion') {
    const due = nextStage(state);
    const index = QUESTION_STAGES.indexOf(stage!);
    if (due !== undefined && index > QUESTION_STAGES.indexOf(due)) throw outOfOrder(call, `the ${due} stage comes before the ${stage} stage`, id, state);
    return;
  }
  if (!readyForManifests(state)) throw outOfOrder(call, 'the required questions are not answered', id, state);
  if (call === 'deployManifests' && !state.manifests)
    throw outOfOrder(call, 'no manifests have been generated (or an answer changed since)', id, state, 'generateManifests');
}
