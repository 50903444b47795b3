import type { Template } from '../../ai/template.js';
import { MAX_REMEDIATION_ACTIONS } from '../../../domain/remediation/remediation-analysis.js';
import type { RemediationAnalysis } from '../../../domain/remediation/remediation-analysis.js';

export interface AnalyseData {
  issue: string;
  evidence?: string;
  /** The investigation's function calls and results (transcript.ts). */
  investigation: string;
  /** The model's own conclusion at the end of the investigation. */
  findings?: string;
  /** svc's own note when a limit ended the investigation early. */
  stoppedEarly?: string;
  /** The organisation's policies that apply, as text. */
  policies?: string;
}

/** Step 2 of remediate: the analysis as JSON, from what the investigation found (a fresh conversation). */
export const analyseTemplate: Template<AnalyseData> = {
  id: 'remediate/analyse',
  instructions: `You investigated a problem in a Kubernetes cluster for svc with read-only functions; the calls you
made and what they returned are given as data. Now give your analysis as one JSON object, and nothing
else, with these fields:
- rootCause: the root cause in one or two sentences.
- confidence: a number from 0 to 1: how sure you are, given what you actually saw.
- evidence: the objects, events and log lines you looked at that support the root cause (short strings).
- actions: the changes that fix the root cause, in order, at most ${MAX_REMEDIATION_ACTIONS}; an empty list
  when nothing in the cluster should change or you are not sure what would fix it.

Each action is a Kubernetes API operation (never a command line), with "description", "risk" and "rationale":
- {"type":"patch","target":{"apiVersion","kind","name","namespace"},"patch":{...}}: for built-in kinds a
  strategic merge patch: name only the fields that change; containers, env, volumeMounts and volumes merge
  by name (volumeMounts by mountPath), so to change one container's image send
  {"spec":{"template":{"spec":{"containers":[{"name":"app","image":"..."}]}}}} and nothing else. null removes
  a field. For custom resources "patch" names the fields to set (null removes one; a list you send replaces
  the whole list), or is a list of JSON Patch operations (RFC 6902) to change single list items.
  The namespace is required for every namespaced object.
- {"type":"apply","manifest":{...}}: server-side apply of a whole object.
- {"type":"delete","target":{...}}, {"type":"scale","target":{...},"replicas":n},
  {"type":"rolloutRestart","target":{...}}.
risk: "low" (no disruption), "medium" (a restart or a brief disruption), "high" (an outage or data loss possible).
Prefer the smallest change that fixes the cause; change the owner (the Deployment), not the pods it creates.
Every action must keep the organisation policies given as data: svc refuses an action that breaks one.`,
  data: (d) => ({
    issue: d.issue,
    evidence: d.evidence,
    organisation_policies: d.policies,
    investigation: d.investigation,
    your_findings: d.findings,
    investigation_note: d.stoppedEarly,
  }),
  ask: 'Answer with the JSON object only.',
};

/** The shape of an analysis, for models not sent the schema (a unit test checks it against remediationAnalysisSchema). */
export const analysisExample: RemediationAnalysis = {
  rootCause: 'Deployment shop/api runs the image ghcr.io/acme/api:2.4-rc, which does not exist, so its new pod stays in ImagePullBackOff.',
  confidence: 0.9,
  evidence: ['Pod shop/api-7d9f-x2x: ImagePullBackOff', 'Event Failed: Failed to pull image "ghcr.io/acme/api:2.4-rc": not found'],
  actions: [
    {
      type: 'patch',
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', namespace: 'shop' },
      patch: { spec: { template: { spec: { containers: [{ name: 'api', image: 'ghcr.io/acme/api:2.3' }] } } } },
      description: 'Set the api container image back to ghcr.io/acme/api:2.3',
      risk: 'medium',
      rationale: 'ghcr.io/acme/api:2.3 is the last image that ran; the pods restart with it',
    },
  ],
};
