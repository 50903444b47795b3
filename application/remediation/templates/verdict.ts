import type { Template } from '../../ai/template.js';

export interface VerdictData {
  issue: string;
  rootCause: string;
  applied: string;
  /** The follow-up check's function calls and results (transcript.ts). */
  check: string;
}

/** Step 3b of remediate: the follow-up check's verdict as JSON, when its last answer was not already one. */
export const verdictTemplate: Template<VerdictData> = {
  id: 'remediate/verdict',
  instructions: `You checked, for svc, whether a problem in a Kubernetes cluster is fixed after changes were applied;
the calls you made and what they returned are given as data. Answer with one JSON object, and nothing
else: {"resolved": true|false, "summary": "what you checked and saw", "remainingProblems": ["..."]}.
resolved is true only when what you saw shows the issue is gone.`,
  data: (d) => ({ issue: d.issue, root_cause: d.rootCause, applied_changes: d.applied, check: d.check }),
  ask: 'Answer with the JSON object only.',
};
