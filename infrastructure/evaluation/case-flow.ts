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

/**
 * Runs the scenario's tool as a person would: the first call with the
 * scenario's input, then (when svc proposes a change and waits for approval)
 * executeChoice 1 if the scenario approves, 2 if not.
 */
export async function flowOf(s: Scenario, call: Call): Promise<FlowOutcome> {
  let outcome: FlowOutcome = { status: 'not-started', diagnosis: '', risk: 'none' };
  try {
    const first = await call(s.tool, s.input);
    outcome = read(s.tool, first);
    const r = isJsonObject(first) ? first : {};
    if (r.status === 'awaiting_approval' && typeof r.sessionId === 'string') {
      const second = await call(s.tool, { sessionId: r.sessionId, executeChoice: s.approve ? 1 : 2 });
      outcome = { ...outcome, status: str(isJsonObject(second) ? second.status : '') || 'unknown' };
    }
  } catch (err) {
    const message = err instanceof DomainError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    outcome = { ...outcome, status: 'error', error: message.slice(0, 1000) };
  }
  return outcome;
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
