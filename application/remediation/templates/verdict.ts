import type { LoopRecord } from '../../ai/final-answer.js';
import type { Template } from '../../ai/template.js';
import type { VerifyData } from './verify.js';
import type { Verification } from '../../../domain/remediation/remediation-analysis.js';

/** The follow-up check's function calls and results, and its last text. */
export type VerdictData = VerifyData & LoopRecord;

/** Step 3b of remediate: the follow-up check's verdict as JSON, when its last answer was not already one. */
export const verdictTemplate: Template<VerdictData> = {
  id: 'remediate/verdict',
  instructions: `You checked, for svc, whether a problem in a Kubernetes cluster is fixed after changes were applied;
the calls you made and what they returned are given as data. Answer with one JSON object, and nothing
else: {"resolved": true|false, "summary": "what you checked and saw", "remainingProblems": ["..."]}.
resolved is true only when what you saw shows the issue is gone.`,
  data: (d) => ({
    issue: d.issue,
    root_cause: d.rootCause,
    applied_changes: d.applied,
    svc_verdict: d.svcVerdict,
    check: d.investigation,
    your_last_answer: d.findings,
  }),
  ask: 'Answer with the JSON object only.',
};

/** The shape of a verdict, for models not sent the schema (checked against verificationSchema by a unit test). */
export const verdictExample: Verification = {
  resolved: false,
  summary: 'Deployment shop/api rolled out; its new pod is Running but not Ready: the readiness probe on /healthz fails with 503.',
  remainingProblems: ['Pod shop/api-6c4b-q8m: readiness probe failed (HTTP 503)'],
};
