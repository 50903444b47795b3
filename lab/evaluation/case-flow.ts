import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import { RISK_LEVELS } from '../../domain/actions/cluster-action.js';
import { DomainError } from '../../domain/errors.js';
import type { Scenario } from '../../domain/evaluation/scenario.js';
import { isJsonObject } from '../../domain/json-object.js';

type Call = (tool: string, params: Record<string, unknown>) => Promise<unknown>;

/** What a case's tool calls came to: the last status, the diagnosis text, svc's assessed risk, a failure. */
export interface FlowOutcome {
  status: string;
  diagnosis: string;
  risk: RiskLevel | 'none';
  error?: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);
const highest = (risks: unknown[]): RiskLevel | 'none' =>
  risks.reduce<RiskLevel | 'none'>((top, r) => {
    const i = RISK_LEVELS.indexOf(r as RiskLevel);
    return i >= 0 && (top === 'none' || i > RISK_LEVELS.indexOf(top)) ? (r as RiskLevel) : top;
  }, 'none');

/** The stages of a chosen solution's questions, in the order answerQuestion takes them. */
const STAGES = ['required', 'basic', 'advanced', 'open'] as const;

/**
 * Runs the scenario's tool as a person would: the first call with the
 * scenario's input, then (when svc proposes a change and waits for approval)
 * executeChoice 1 if the scenario approves, 2 if not. A recommend scenario
 * runs the whole recommend→deploy workflow (deployFlow).
 */
export async function flowOf(s: Scenario, call: Call): Promise<FlowOutcome> {
  let outcome: FlowOutcome = { status: 'not-started', diagnosis: '', risk: 'none' };
  if (s.tool === 'recommend') return deployFlow(s, call);
  try {
    const first = await call(s.tool, s.input);
    const r = isJsonObject(first) ? first : {};
    if (isJsonObject(r.fleet)) return await fleetFlow(s, r.fleet, call);
    outcome = isJsonObject(r.rollout) ? await readRollout(s.tool, r.rollout, call) : read(s.tool, first);
    if (r.status === 'awaiting_approval' && typeof r.sessionId === 'string') {
      // a session continues on its own cluster (a case on several clusters names it in its input)
      const cluster = typeof s.input.cluster === 'string' ? { cluster: s.input.cluster } : {};
      // a rollout across clusters (operate with clusterSelector) executes on the digest it answered: one approval binds every cluster's plan
      const digest = isJsonObject(r.rollout) && s.approve && typeof r.planDigest === 'string' ? { planDigest: r.planDigest } : {};
      const second = await call(s.tool, { sessionId: r.sessionId, executeChoice: s.approve ? 1 : 2, ...cluster, ...digest });
      outcome = { ...outcome, status: str(isJsonObject(second) ? second.status : '') || 'unknown' };
    }
  } catch (err) {
    const message = err instanceof DomainError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    outcome = { ...outcome, status: 'error', error: message.slice(0, 1000) };
  }
  return outcome;
}

/**
 * recommend→deploy as a person runs it: recommend with the scenario's intent,
 * chooseSolution of the first (best) solution, answerQuestion for each stage
 * with the scenario's `answers` (an empty object skips an optional stage),
 * generateManifests, then deployManifests when the scenario approves. The
 * diagnosis is the solution's description and resources with the generated
 * manifests; the risk is svc's own, the highest of the objects it applied
 * (none when nothing was deployed).
 */
async function deployFlow(s: Scenario, call: Call): Promise<FlowOutcome> {
  const outcome: FlowOutcome = { status: 'not-started', diagnosis: '', risk: 'none' };
  try {
    const rec = asObject(await call('recommend', s.input));
    outcome.status = 'recommended';
    const best = list(rec.solutions)[0];
    if (!best || typeof best.solutionId !== 'string') return { ...outcome, status: str(rec.status) || 'no-solution' };
    const solutionId = best.solutionId;
    const resources = list(best.resources).map((r) => `${str(r.kind)}: ${str(r.purpose)}`);
    outcome.diagnosis = [str(best.description), ...resources].join('\n');
    await call('chooseSolution', { solutionId });
    for (const stage of STAGES) await call('answerQuestion', { solutionId, stage, answers: s.answers?.[stage] ?? {} });
    const generated = asObject(await call('generateManifests', { solutionId }));
    outcome.status = 'generated';
    outcome.diagnosis = [outcome.diagnosis, str(generated.manifests)].join('\n');
    if (!s.approve) return outcome;
    const deployed = asObject(await call('deployManifests', { solutionId, timeout: DEPLOY_TIMEOUT_S }));
    const applied = list(deployed.applied);
    return { ...outcome, status: str(deployed.status) || 'unknown', risk: highest(applied.map((a) => a.risk)) };
  } catch (err) {
    return { ...outcome, status: 'error', error: errorText(err) };
  }
}

/** How long a case's deploy waits for readiness: the sandbox's clock moves on every read, so a healthy deploy is ready in a few polls. */
const DEPLOY_TIMEOUT_S = 15;

const asObject = (v: unknown): Record<string, unknown> => (isJsonObject(v) ? v : {});
const errorText = (err: unknown) =>
  (err instanceof DomainError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** One cluster's session of a fleet answer, as its own session shows it. */
interface ClusterPlan {
  cluster: string;
  sessionId: string;
  plan: FlowOutcome;
}

/**
 * Each cluster's session (a fleet answer's `{cluster, sessionId}` entries),
 * looked at through the session itself (sessionId alone, with its cluster),
 * in order; and what they come to together: every cluster's diagnosis, named
 * by its cluster, and the highest risk.
 */
async function lookAtEach(
  tool: Scenario['tool'],
  members: Record<string, unknown>[],
  call: Call,
): Promise<{ plans: ClusterPlan[]; diagnosis: string; risk: RiskLevel | 'none' }> {
  const plans: ClusterPlan[] = [];
  for (const c of members) {
    const [cluster, sessionId] = [str(c.cluster), str(c.sessionId)];
    plans.push({ cluster, sessionId, plan: read(tool, await call(tool, { sessionId, cluster })) });
  }
  return { plans, diagnosis: plans.map((p) => `${p.cluster}: ${p.plan.diagnosis}`).join('\n'), risk: highest(plans.map((p) => p.plan.risk)) };
}

/**
 * A rollout across clusters (operate with clusterSelector) answers with its
 * waves only: the diagnosis and risk are each cluster's plan, in wave order.
 */
async function readRollout(tool: Scenario['tool'], rollout: Record<string, unknown>, call: Call): Promise<FlowOutcome> {
  const { diagnosis, risk } = await lookAtEach(
    tool,
    list(rollout.waves).flatMap((w) => list(w.clusters)),
    call,
  );
  return { status: 'awaiting_approval', diagnosis, risk };
}

/**
 * A fleet investigation (remediate with clusterSelector) answers with each
 * cluster's status and session: the diagnosis and risk are each cluster's
 * analysis, and each cluster awaiting approval is then executed (or stopped)
 * in its own session and cluster, as a person continues a fleet
 * investigation. The status is the first cluster's that did not end
 * executed, else executed (no_action when no cluster proposed anything).
 */
async function fleetFlow(s: Scenario, fleet: Record<string, unknown>, call: Call): Promise<FlowOutcome> {
  const members = list(fleet.clusters).filter((c) => typeof c.sessionId === 'string' && c.sessionId);
  const { plans, diagnosis, risk } = await lookAtEach('remediate', members, call);
  const statuses: string[] = [];
  for (const p of plans.filter((x) => x.plan.status === 'awaiting_approval')) {
    const done = await call('remediate', { sessionId: p.sessionId, executeChoice: s.approve ? 1 : 2, cluster: p.cluster });
    statuses.push(str(isJsonObject(done) ? done.status : '') || 'unknown');
  }
  const status = statuses.length ? (statuses.find((x) => x !== 'executed') ?? 'executed') : 'no_action';
  return { status, diagnosis, risk };
}

/** The diagnosis and risk of a tool's first answer (remediate: root cause and evidence; operate: the plan). */
function read(tool: Scenario['tool'], answer: unknown): FlowOutcome {
  const a = isJsonObject(answer) ? answer : {};
  if (tool === 'remediate') {
    const actions = list(a.actions);
    const evidence = Array.isArray(a.evidence) ? a.evidence.map(str) : [];
    return { status: str(a.status), diagnosis: [str(a.rootCause), ...evidence].join('\n'), risk: highest(actions.map((x) => x.risk)) };
  }
  if (tool === 'operate') {
    const p = isJsonObject(a.proposal) ? a.proposal : {};
    const actions = list(p.actions);
    const text = [str(p.summary), ...actions.flatMap((x) => [str(x.description), str(x.rationale)])].join('\n');
    return { status: str(a.status), diagnosis: text, risk: actions.length ? highest([p.risk, ...actions.map((x) => x.risk)]) : 'none' };
  }
  return { status: str(a.status), diagnosis: '', risk: 'none' };
}
