import type { Template } from '../../ai/template.js';

export interface VerifyData {
  issue: string;
  rootCause: string;
  /** What was applied, one line per action with its outcome. */
  applied: string;
  /** Where the rollout of each changed workload stands after svc waited for it, one line each; '' when none rolls out. */
  rollouts?: string;
  /** svc's own deterministic verdict (healthy, degraded, unknown) with its evidence and what it reverted: data, which the check cannot overrule. */
  svcVerdict?: string;
}

/** Step 3 of remediate, after execution: a short read-only check that the issue is gone. */
export const verifyTemplate: Template<VerifyData> = {
  id: 'remediate/verify',
  instructions: `You check, for svc, whether a problem in a Kubernetes cluster is fixed. Changes were just applied to
fix it. svc waited for the rollouts of the workloads it changed: where each one ended (rolled out,
failed or timed out) is given as data. svc then judged the changed objects itself (rollout, replicas,
container restarts and waiting reasons, new Warning events): its verdict is given as data too; when it
says degraded, the change made things worse and may already have been reverted.

Use the read-only functions you are given to look at the objects the issue is about now: their status,
the pods they run, recent events, logs. You have only a few calls: look at what shows the issue most
directly. You cannot change anything.

Then answer with one JSON object, and nothing else: {"resolved": true|false, "summary": "what you
checked and saw", "remainingProblems": ["..."]}. resolved is true only when what you saw shows the issue
is gone (a rollout still in progress with the old problem visible is not resolved).`,
  data: (d) => ({ issue: d.issue, root_cause: d.rootCause, applied_changes: d.applied, rollouts: d.rollouts, svc_verdict: d.svcVerdict }),
  ask: 'Check now whether the issue is gone.',
};
