import type { ToolContext } from '../tool-handler.js';
import { validateStageAnswers } from '../../domain/deployment/answer-rules.js';
import { assertCallAllowed, nextStage, nextSteps, readyForManifests } from '../../domain/deployment/workflow.js';
import { ValidationError } from '../../domain/errors.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ToolHandler } from '../tool-handler.js';
import type { SolutionSessions } from './solution-sessions.js';

/**
 * answerQuestion: checks a stage's answers against the questions' rules
 * (a bad one is a 400 naming the question and the rule), stores them and
 * says what comes next. Answering a stage again replaces its answers and
 * drops manifests generated from the old ones.
 */
export class AnswerQuestion implements ToolHandler<ToolInput<'answerQuestion'>> {
  constructor(
    private readonly cluster: ClusterReader,
    private readonly sessions: SolutionSessions,
  ) {}

  async execute({ solutionId, stage, answers }: ToolInput<'answerQuestion'>, context?: ToolContext) {
    const session = await this.sessions.load(solutionId, context);
    assertCallAllowed('answerQuestion', solutionId, session.state, stage);
    const accepted = validateStageAnswers(session.state.questions!, stage, answers);
    const namespace = accepted.namespace;
    if (stage === 'required' && typeof namespace === 'string' && namespace !== 'default') {
      const found = await this.cluster.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
      if (!found)
        throw new ValidationError(`Invalid answer for question "namespace": namespace ${namespace} does not exist in the cluster`, {
          question: 'namespace',
          rule: 'exists',
        });
    }
    const { manifests: _dropped, deployment: _gone, ...rest } = session.state;
    const changed = session.state.manifests !== undefined && JSON.stringify(session.state.answers[stage]) !== JSON.stringify(accepted);
    const state = changed
      ? { ...rest, answers: { ...rest.answers, [stage]: accepted } }
      : { ...session.state, answers: { ...session.state.answers, [stage]: accepted } };
    const saved = await this.sessions.save(session, state);
    return {
      solutionId,
      stage,
      accepted,
      nextStage: nextStage(saved.state) ?? null,
      readyForManifests: readyForManifests(saved.state),
      ...(changed ? { notes: ['The answers changed: the manifests generated earlier were dropped; generate them again.'] } : {}),
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }
}
