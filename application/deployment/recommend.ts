import type { ToolContext } from '../tool-handler.js';
import { z } from 'zod';
import type { ApiResourceInfo } from '../../domain/cluster/kube-types.js';
import type { PolicyRules } from '../../domain/deployment/answer-rules.js';
import type { DroppedResource, Solution, SolutionResource } from '../../domain/deployment/solution.js';
import { nextSteps } from '../../domain/deployment/workflow.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { requireConfigured } from '../ai/require-configured.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { RunBudget, type BudgetLimits } from '../ai/run-budget.js';
import { askStructured } from '../ai/structured-chat.js';
import { render } from '../ai/template.js';
import type { ToolHandler } from '../tool-handler.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { searchOrgContext, type OrgContext } from './org-context.js';
import type { SolutionSessions } from './solution-sessions.js';
import { recommendationExample, recommendTemplate } from './templates/recommend.js';

const line = (max: number) => z.string().trim().min(1).max(max);
/** The model's recommendation, as svc accepts it. */
export const recommendationSchema = z.object({
  clarity: z.enum(['clear', 'vague']),
  guidance: z.array(line(300)).max(10).optional(),
  solutions: z
    .array(
      z.object({
        score: z.number().min(0).max(100),
        description: line(1000),
        resources: z.array(z.object({ kind: line(100), apiVersion: z.string().max(253).optional(), purpose: z.string().max(300).optional() })).max(15),
        patternsApplied: z.array(z.string().max(256)).max(10).optional(),
        policiesRespected: z.array(z.string().max(256)).max(20).optional(),
      }),
    )
    .max(5),
});
export type RecommendationAnswer = z.infer<typeof recommendationSchema>;
type ModelSolution = RecommendationAnswer['solutions'][number];

/** Fixed guidance for an intent too short to act on (no model call is spent on it). */
export const VAGUE_GUIDANCE = [
  'What software or application should run (for example PostgreSQL 16, or your own image)?',
  'What is it for, and who or what reaches it (other services in the cluster, or users from outside)?',
  'Does it keep data that must survive restarts, and how much?',
  'Anything about scale, schedule (a nightly job?) or availability?',
];
const MAX_SERVED_LINES = 400;

/** Resolves a kind the model named against discovery: the apiVersion it gave when served, else the cluster's preferred one. */
function resolve(served: readonly ApiResourceInfo[], r: { kind: string; apiVersion?: string }): ApiResourceInfo | undefined {
  const writable = served.filter((s) => s.kind === r.kind && (s.verbs.length === 0 || s.verbs.includes('create') || s.verbs.includes('patch')));
  return writable.find((s) => s.apiVersion === r.apiVersion) ?? writable[0];
}

export type RecommendResult = Awaited<ReturnType<Recommend['execute']>>;

/** recommend: intent -> guidance, or up to 3 solutions, each stored as a solution session. */
export class Recommend implements ToolHandler<ToolInput<'recommend'>> {
  constructor(
    private readonly llm: LlmProvider,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    private readonly cluster: ClusterReader,
    private readonly sessions: SolutionSessions,
    private readonly limits: Omit<BudgetLimits, 'maxCalls'>,
    /** Which policies apply in the current work's cluster; default every one. */
    private readonly policyApplies?: (policy: NamedPolicy) => boolean,
  ) {}

  async execute({ intent, final = false }: ToolInput<'recommend'>, context?: ToolContext) {
    const words = intent.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (!final && words.length < 3) return this.guidance(intent, VAGUE_GUIDANCE);
    requireConfigured({ llm: this.llm, cluster: this.cluster });
    const org = await searchOrgContext(this.vectors, this.embedder, intent, undefined, this.policyApplies);
    const served = await this.cluster.listApiResources();
    const lines = [...new Set(served.map((r) => `${r.apiVersion} ${r.kind}`))].slice(0, MAX_SERVED_LINES);
    const answer = await askStructured(this.llm, {
      messages: render(recommendTemplate, { intent, final, served: lines, org }),
      schema: recommendationSchema,
      name: 'recommendation',
      example: recommendationExample,
      what: 'recommendation',
      budget: new RunBudget({ ...this.limits, maxCalls: 2 }),
    });
    if (answer.clarity === 'vague' && !final && answer.solutions.length === 0)
      return this.guidance(intent, answer.guidance?.length ? answer.guidance : VAGUE_GUIDANCE);
    const notes = [...org.notes];
    const policies: PolicyRules[] = org.policies.map((p) => ({ policy: p.id, constraints: p.constraints }));
    const solutions = [];
    for (const m of [...answer.solutions].sort((a, b) => b.score - a.score).slice(0, 3)) {
      const solution = this.check(m, served, org);
      if (solution.resources.length === 0) {
        notes.push(`A solution was refused: none of its kinds (${m.resources.map((r) => r.kind).join(', ') || 'none'}) is served by this cluster.`);
        continue;
      }
      for (const d of solution.droppedResources) notes.push(`${d.kind} was dropped from a solution: ${d.reason}.`);
      const session = await this.sessions.create({ intent, solution, policies, answers: {} }, context);
      solutions.push({ solutionId: session.id, ...solution });
    }
    return {
      status: solutions.length ? ('solutions' as const) : ('no-solutions' as const),
      intent,
      solutions,
      organizationalContext: { capabilities: org.capabilities.length, patterns: org.patterns.map((p) => p.id), policies: org.policies.map((p) => p.id) },
      notes,
      nextSteps: solutions.length
        ? solutions.map((s, i) => ({
            ...nextSteps(s.solutionId, { intent, solution: s, policies, answers: {} })[0],
            why: `Choose solution ${i + 1} (score ${s.score}): ${s.description}`,
          }))
        : [{ tool: 'recommend', params: { intent, final: true }, why: 'Refine the intent (name the software and how it is used) and ask again' }],
    };
  }

  private guidance(intent: string, guidance: string[]) {
    return {
      status: 'needs-clarification' as const,
      intent,
      guidance,
      solutions: [],
      notes: [
        'The intent is too vague to recommend a solution: refine it with the answers to the guidance, or call recommend again with final: true to get solutions anyway.',
      ],
      nextSteps: [{ tool: 'recommend', params: { intent, final: true }, why: 'Refine the intent (or keep it, with final: true)' }],
    };
  }

  private check(m: ModelSolution, served: readonly ApiResourceInfo[], org: OrgContext): Solution {
    const resources: SolutionResource[] = [];
    const droppedResources: DroppedResource[] = [];
    for (const r of m.resources) {
      const info = resolve(served, r);
      if (!info) {
        droppedResources.push({ kind: r.kind, ...(r.apiVersion ? { apiVersion: r.apiVersion } : {}), reason: 'this cluster does not serve that kind' });
        continue;
      }
      if (resources.some((x) => x.kind === info.kind && x.apiVersion === info.apiVersion)) continue;
      resources.push({ apiVersion: info.apiVersion, kind: info.kind, namespaced: info.namespaced, purpose: r.purpose ?? '' });
    }
    const patternIds = new Set(org.patterns.map((p) => p.id));
    const policyIds = new Set(org.policies.map((p) => p.id));
    return {
      score: m.score,
      description: m.description,
      resources,
      patternsApplied: (m.patternsApplied ?? []).filter((id) => patternIds.has(id)),
      // Every policy found for the intent applies, whatever the model listed: enforcement never depends on the model.
      policiesRespected: [...new Set([...(m.policiesRespected ?? []).filter((id) => policyIds.has(id)), ...policyIds])],
      droppedResources,
    };
  }
}
