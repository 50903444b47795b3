import type { ToolContext } from '../tool-handler.js';
import { applyPolicies } from '../../domain/deployment/answer-rules.js';
import { questionsFromSchemas } from '../../domain/deployment/questions-from-schema.js';
import type { JsonSchema } from '../../domain/deployment/schema-field.js';
import { nextSteps } from '../../domain/deployment/workflow.js';
import { DependencyError } from '../../domain/errors.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ToolHandler } from '../tool-handler.js';
import type { SolutionSessions } from './solution-sessions.js';

/**
 * chooseSolution: the configuration questions of a solution, in four stages,
 * from the cluster's OpenAPI v3 (and CRD) schemas of its resources, with the
 * policies' constraints as validation. Choosing again returns the same
 * questions and keeps the answers given so far.
 */
export class ChooseSolution implements ToolHandler<ToolInput<'chooseSolution'>> {
  constructor(
    private readonly cluster: ClusterReader,
    private readonly sessions: SolutionSessions,
  ) {}

  async execute({ solutionId }: ToolInput<'chooseSolution'>, context?: ToolContext) {
    let session = await this.sessions.load(solutionId, context);
    const notes: string[] = [];
    if (!session.state.questions) {
      const { intent, solution, policies } = session.state;
      const resources = [];
      for (const r of solution.resources) {
        let schema: JsonSchema | null = null;
        try {
          schema = (await this.cluster.getResourceSchema(r.apiVersion, r.kind))?.schema ?? null;
        } catch (e) {
          if (!(e instanceof DependencyError)) throw e;
          notes.push(`The schema of ${r.kind} could not be read (${e.message}): no questions about its fields.`);
        }
        if (!schema && !notes.some((n) => n.includes(r.kind)))
          notes.push(`The cluster publishes no schema for ${r.apiVersion} ${r.kind}: no questions about its fields.`);
        resources.push({ kind: r.kind, namespaced: r.namespaced, schema });
      }
      const questions = applyPolicies(
        questionsFromSchemas(intent, resources),
        policies,
        solution.resources.map((r) => r.kind),
      );
      session = await this.sessions.save(session, { ...session.state, questions });
    }
    const { state } = session;
    return {
      solutionId,
      solution: state.solution,
      questions: state.questions!,
      answered: Object.keys(state.answers),
      notes,
      nextSteps: nextSteps(solutionId, state),
    };
  }
}
