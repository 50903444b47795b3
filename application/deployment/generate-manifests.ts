import type { ToolContext } from '../tool-handler.js';
import { toYaml } from '../../domain/deployment/manifest-yaml.js';
import { allQuestions } from '../../domain/deployment/question.js';
import { assertCallAllowed, nextSteps } from '../../domain/deployment/workflow.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { RunBudget, type BudgetLimits } from '../ai/run-budget.js';
import { render } from '../ai/template.js';
import type { ToolHandler } from '../tool-handler.js';
import { generateWithRepair, MAX_MANIFEST_ATTEMPTS } from './manifest-repair-loop.js';
import type { SolutionSessions } from './solution-sessions.js';
import { generateManifestsTemplate } from './templates/generate-manifests.js';

/** generateManifests: the model writes the manifests; svc labels, checks and dry-runs them until the cluster accepts them. */
export class GenerateManifests implements ToolHandler<ToolInput<'generateManifests'>> {
  constructor(
    private readonly llm: LlmProvider,
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly sessions: SolutionSessions,
    private readonly clock: Clock,
    private readonly limits: Omit<BudgetLimits, 'maxCalls'>,
  ) {}

  async execute({ solutionId }: ToolInput<'generateManifests'>, context?: ToolContext) {
    const session = await this.sessions.load(solutionId, context);
    const { state } = session;
    assertCallAllowed('generateManifests', solutionId, state);
    const kinds = state.solution.resources.map((r) => r.kind);
    const constraints = state.policies.flatMap((p) => p.constraints).filter((c) => c.kind === '*' || kinds.includes(c.kind));
    const questions = new Map(allQuestions(state.questions!).map((q) => [q.id, q]));
    const answers = Object.entries({ ...state.answers.required, ...state.answers.basic, ...state.answers.advanced }).map(([id, value]) => ({
      id,
      question: questions.get(id)?.text,
      target: questions.get(id)?.target,
      value,
    }));
    const open = state.answers.open?.open;
    const messages = render(generateManifestsTemplate, {
      intent: state.intent,
      solution: JSON.stringify({ description: state.solution.description, resources: state.solution.resources }),
      answers: JSON.stringify(answers),
      notes: typeof open === 'string' ? open : undefined,
      constraints: constraints.length ? JSON.stringify(constraints) : undefined,
    });
    const namespace = state.solution.resources.some((r) => r.namespaced) ? String(state.answers.required?.namespace ?? 'default') : undefined;
    const { objects, attempts } = await generateWithRepair(this.llm, this.writer, {
      messages,
      solutionId,
      served: await this.reader.listApiResources(),
      namespace,
      constraints,
      // Each attempt may take one structured retry of its own.
      budget: new RunBudget({ ...this.limits, maxCalls: MAX_MANIFEST_ATTEMPTS * 2 }),
    });
    const yaml = toYaml(objects);
    const { deployment: _old, ...rest } = state;
    const saved = await this.sessions.save(session, { ...rest, manifests: { objects, yaml, attempts, generatedAt: new Date(this.clock.now()).toISOString() } });
    return {
      solutionId,
      status: 'generated' as const,
      attempts,
      objects: objects.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace })),
      manifests: yaml,
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }
}
