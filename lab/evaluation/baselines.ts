import type { ChatMessage, ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import type { LlmStatus } from '../../domain/ports/llm-provider.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { LoadedScenario } from './scenario-loader.js';
import { estimateTokens, ObservedLlm } from './transcript-llm.js';

/**
 * The built-in non-models of `svc eval --baselines`: each answers every
 * scenario the same way, whatever the cluster says, through the same scripted
 * path a replay takes. A scorecard is only worth trusting when these fail.
 */
export const BASELINES = ['do-nothing', 'always-restart', 'more-memory', 'every-cause', 'parrot-issue'] as const;
export type Baseline = (typeof BASELINES)[number];

/** Every common cause in plain words: a diagnosis that asserts them all has said nothing. */
export const EVERY_CAUSE = [
  'the image cannot be pulled (ImagePullBackOff, ErrImagePull, tag not found, no pull secret)',
  'the container runs out of memory (OOMKilled, exit code 137, memory limit too low)',
  'the process crashes at start (CrashLoopBackOff, exit code 1, a bad command, args or workingDir)',
  'a failing readiness, liveness or startup probe (wrong path or port, timeout)',
  'a missing ConfigMap, Secret, key or environment variable (DATABASE_URL, password, TLS certificate expired)',
  'a Service selector or targetPort that matches no pod (no endpoints)',
  'DNS resolution failures (lookup, i/o timeout, NXDOMAIN)',
  'RBAC forbids it (forbidden, cannot list, ServiceAccount, Role, RoleBinding)',
  'a ResourceQuota or LimitRange is exceeded (exceeded quota, requests.memory, requests.cpu)',
  'the pod cannot be scheduled (Pending, taint, toleration, node affinity, nodeSelector, insufficient cpu or memory, node pressure)',
  'a PersistentVolumeClaim is full, unbound or pending (No space left on device, storage class)',
  'a NetworkPolicy blocks the traffic (ingress, egress, default deny)',
  'a rollout is stuck or the replicas are wrong (progress deadline, maxUnavailable, PodDisruptionBudget, HPA, scale)',
  'an init container, a Job or a CronJob fails (backoffLimit, Completed, Init:Error)',
  'GitOps drift or a bad release (Argo CD, Flux, sync, revision, rollback)',
].join('; ');

const WORKLOADS = ['Deployment', 'StatefulSet', 'DaemonSet'];

/** The scenario's first workload, the one a blind answer would pick. */
function firstWorkload(loaded: LoadedScenario): KubeObject | undefined {
  return loaded.objects.find((o) => WORKLOADS.includes(o.kind) && !('status' in o)) ?? loaded.objects.find((o) => WORKLOADS.includes(o.kind));
}

const containersOf = (w: KubeObject): { name: string; resources?: { limits?: Record<string, unknown> } }[] => {
  const spec = (w.spec as { template?: { spec?: { containers?: unknown } } } | undefined)?.template?.spec?.containers;
  return Array.isArray(spec) ? (spec as { name: string }[]) : [];
};

const MI = 1024 * 1024;
/** Twice a memory limit (at least 512Mi), as Mi. */
function doubled(limit: unknown): string {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(typeof limit === 'string' ? limit : '');
  const bytes = m ? Number(m[1]) * ({ Ki: 1024, Mi: MI, Gi: 1024 * MI } as Record<string, number>)[m[2] ?? 'Mi'] : 0;
  return `${Math.max(512, Math.ceil((2 * bytes) / MI))}Mi`;
}

/** The issue or intent the case starts with. */
const issueText = (loaded: LoadedScenario) => {
  const i = loaded.scenario.input;
  return String(i.issue ?? i.intent ?? '').slice(0, 2000) || 'no issue given';
};

/** One baseline's answer: its diagnosis text and its actions (the same for every scenario, aimed at the first workload). */
export function baselineAnswer(kind: Baseline, loaded: LoadedScenario): { text: string; actions: Record<string, unknown>[] } {
  const w = firstWorkload(loaded);
  const target = w && { apiVersion: w.apiVersion, kind: w.kind, name: w.metadata.name, ...(w.metadata.namespace ? { namespace: w.metadata.namespace } : {}) };
  const common = { risk: 'low', rationale: 'baseline' };
  switch (kind) {
    case 'do-nothing':
      return { text: 'Nothing in the cluster needs to change.', actions: [] };
    case 'every-cause':
      return { text: `One of these: ${EVERY_CAUSE}.`, actions: [] };
    case 'parrot-issue':
      return { text: issueText(loaded), actions: [] };
    case 'always-restart':
      return {
        text: 'The workload is in a bad state; a restart clears it.',
        actions: target ? [{ type: 'rolloutRestart', target, description: `Restart ${target.kind} ${target.name}`, ...common }] : [],
      };
    case 'more-memory': {
      const containers = w ? containersOf(w) : [];
      const patch = {
        spec: {
          template: {
            spec: { containers: containers.map((c) => ({ name: c.name, resources: { limits: { memory: doubled(c.resources?.limits?.memory) } } })) },
          },
        },
      };
      return {
        text: 'The workload does not have enough memory.',
        actions: target && containers.length ? [{ type: 'patch', target, patch, description: `Give ${target.name} more memory`, ...common }] : [],
      };
    }
  }
}

/** The diagnosis text svc's answer to a baseline carries (case-flow.ts reads the same fields): the same on every run. */
export function baselineDiagnosis(kind: Baseline, loaded: LoadedScenario): string {
  const a = baselineAnswer(kind, loaded);
  if (loaded.scenario.tool === 'operate') return [a.text, ...a.actions.flatMap((x) => [String(x.description), String(x.rationale)])].join('\n');
  return a.text;
}

/**
 * Whether a diagnosis could pass the scenario's diagnosis score: every fact
 * stated (a fact with a source never passes for a baseline, which reads
 * nothing) and no distractor. A baseline whose diagnosis cannot pass cannot
 * pass the case, whatever its run does.
 */
export function diagnosisCanPass(loaded: LoadedScenario, diagnosis: string): boolean {
  const e = loaded.scenario.expect;
  const says = (p: string) => new RegExp(p, 'i').test(diagnosis);
  return e.diagnosis.every(says) && e.facts.every((f) => !f.readFrom && says(f.says)) && !e.notStated.some(says);
}

/**
 * A baseline as a model: the investigation's turn is a final answer with no
 * function call, the analysis (or plan) is the baseline's answer, and a
 * follow-up check says the issue is gone. Anything else it is asked (the
 * recommend workflow) gets an empty object, which svc refuses.
 */
export class BaselineLlm extends ObservedLlm {
  constructor(
    readonly kind: Baseline,
    private readonly loaded: LoadedScenario,
  ) {
    super();
  }

  status(): LlmStatus {
    return { configured: true, provider: 'baseline', model: `baseline:${this.kind}` };
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const sent = this.observe(messages, options);
    const schema = typeof options.responseFormat === 'object' ? options.responseFormat.jsonSchema.name : undefined;
    const answer = baselineAnswer(this.kind, this.loaded);
    let text: string;
    if (schema === 'remediation_analysis') text = JSON.stringify({ rootCause: answer.text, confidence: 0.5, evidence: [], actions: answer.actions });
    else if (schema === 'operation_plan') text = JSON.stringify({ summary: answer.text, risk: 'low', actions: answer.actions });
    else if (schema === 'remediation_verification') text = JSON.stringify({ resolved: true, summary: 'The issue is gone.' });
    else if (schema) text = '{}';
    else text = answer.text;
    this.answered(schema, text);
    const usage = { inputTokens: estimateTokens(sent), outputTokens: estimateTokens(text), cacheReadTokens: 0, cacheCreationTokens: 0 };
    this.count(usage);
    return { text, toolCalls: [], usage, model: this.status().model ?? 'baseline', finishReason: 'stop' };
  }
}
