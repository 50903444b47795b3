import { requireRole } from '../../domain/auth/tool-access.js';
import { ValidationError } from '../../domain/errors.js';
import { callerInCluster, selectClusters, type ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import type { RemediateOutput } from '../../domain/tools/outputs/remediate-output.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { withinCluster } from '../cluster/current-cluster.js';
import { ConcurrencyLimit } from '../prompts/concurrency-limit.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';

type Input = ToolInput<'remediate'>;
type Fleet = NonNullable<RemediateOutput['fleet']>;

/** Clusters investigated at once. */
export const FLEET_CONCURRENCY = 3;
/** Most clusters one fleet investigation covers (each is a whole investigation, with its own model budget). */
export const MAX_FLEET_CLUSTERS = 16;

const normalised = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * remediate across a fleet (SVC_CLUSTERS): with `clusterSelector`, the same
 * issue is investigated in every matching cluster (at most
 * MAX_FLEET_CLUSTERS, FLEET_CONCURRENCY at a time), each by remediate itself
 * in that cluster's scope: its own budgets (model calls, tokens, deadline),
 * its own session (continued with its `cluster`). Manual mode only: nothing
 * is executed. The answer gives each cluster's root cause and proposal, and
 * what they have in common: the root cause every cluster states, the actions
 * every cluster proposes. Every other call goes to remediate unchanged.
 */
export class FleetRemediate implements ToolHandler<Input> {
  constructor(
    private readonly remediate: ToolHandler<Input>,
    private readonly profiles: readonly ClusterProfile[],
  ) {}

  execute(input: Input, context: ToolContext): Promise<unknown> {
    if (input.clusterSelector === undefined) return this.remediate.execute(input, context);
    return this.investigate(input, context);
  }

  private async investigate(input: Input, context: ToolContext): Promise<RemediateOutput> {
    if (input.sessionId !== undefined || input.executeChoice !== undefined)
      throw new ValidationError('clusterSelector starts a fleet investigation: continue each cluster’s session with its sessionId and cluster');
    if (input.mode === 'automatic') throw new ValidationError('a fleet investigation is manual: it proposes per cluster and executes nothing');
    if (input.issue === undefined) throw new ValidationError('issue is required to start an investigation');
    const selector = input.clusterSelector ?? {};
    const matching = selectClusters(this.profiles, selector);
    if (matching.length > MAX_FLEET_CLUSTERS)
      throw new ValidationError(`clusterSelector matches ${matching.length} clusters; a fleet investigation covers at most ${MAX_FLEET_CLUSTERS}: narrow it`);
    for (const p of matching) requireRole(callerInCluster(p, context.caller), 'operator', `remediate in cluster ${p.name}`);
    const { clusterSelector: _s, ...one } = input;
    const limit = new ConcurrencyLimit(FLEET_CONCURRENCY);
    const answers = await Promise.all(
      matching.map((p) =>
        limit
          .run(() =>
            withinCluster(p.name, () => this.remediate.execute({ ...one, mode: 'manual' }, { ...context, caller: callerInCluster(p, context.caller) })),
          )
          .then(
            (a) => a as RemediateOutput,
            (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
          ),
      ),
    );
    return this.answer(input.issue, selector, matching, answers);
  }

  private answer(issue: string, selector: Record<string, string>, matching: readonly ClusterProfile[], answers: (RemediateOutput | Error)[]): RemediateOutput {
    const clusters: Fleet['clusters'] = matching.map((p, i) => {
      const a = answers[i];
      if (a instanceof Error) return { cluster: p.name, status: 'failed', error: a.message.slice(0, 500) };
      return {
        cluster: p.name,
        sessionId: a.sessionId,
        status: a.status,
        ...(a.rootCause ? { rootCause: a.rootCause } : {}),
        ...(a.confidence !== undefined ? { confidence: a.confidence } : {}),
        actions: a.actions.map((x) => x.description),
      };
    });
    const answered = answers.filter((a): a is RemediateOutput => !(a instanceof Error));
    const causes = new Set(answered.map((a) => normalised(a.rootCause ?? '')));
    const signature = (x: RemediateOutput['actions'][number]) =>
      `${x.type} ${x.target ? `${x.target.kind} ${x.target.namespace ? `${x.target.namespace}/` : ''}${x.target.name}` : x.description}`;
    const actionSets = answered.map((a) => new Set(a.actions.map(signature)));
    const commonActions = actionSets.length ? [...actionSets[0]].filter((s) => actionSets.every((set) => set.has(s))) : [];
    const common: Fleet['common'] = {
      clusters: answered.length,
      ...(answered.length > 1 && causes.size === 1 && !causes.has('') ? { rootCause: answered[0].rootCause } : {}),
      actions: answered.length > 1 ? commonActions : [],
    };
    const total = (f: (a: RemediateOutput) => number) => answered.reduce((n, a) => n + f(a), 0);
    const awaiting = answered.filter((a) => a.status === 'awaiting_approval').length;
    const expiresAt = answered.map((a) => a.expiresAt).sort()[0] ?? new Date(0).toISOString();
    return {
      sessionId: answered[0]?.sessionId ?? '',
      status:
        awaiting > 0 ? 'awaiting_approval' : answered.every((a) => a.status === 'no_action') && answered.length ? 'no_action' : 'investigation_incomplete',
      issue,
      ...(common.rootCause ? { rootCause: common.rootCause } : {}),
      actions: [],
      investigation: {
        modelCalls: total((a) => a.investigation.modelCalls),
        functionsCalled: answered.flatMap((a) => a.investigation.functionsCalled).slice(0, 40),
        functionCallCount: total((a) => a.investigation.functionCallCount),
        stoppedBy: 'final-answer',
        tokens: { input: total((a) => a.investigation.tokens.input), output: total((a) => a.investigation.tokens.output) },
      },
      settings: answered[0]?.settings ?? { mode: 'manual', confidenceThreshold: 0.8, maxRiskLevel: 'low' },
      message: `Investigated in ${matching.length} cluster${matching.length > 1 ? 's' : ''} (${matching.map((p) => p.name).join(', ')}); ${
        common.rootCause ? 'every cluster states the same root cause' : 'the clusters differ: see each one'
      }.`,
      nextStep: awaiting
        ? "Review each cluster's proposal; execute one with its sessionId, executeChoice 1 and its cluster (or roll the fix out in waves with operate and clusterSelector)."
        : 'Nothing to execute.',
      expiresAt,
      fleet: { clusterSelector: { ...selector }, clusters, common },
    };
  }
}
