import type { Template } from '../../ai/template.js';

export interface InvestigateData {
  issue: string;
  evidence?: string;
  /** The organisation's policies that apply (policy-source.ts), as text. */
  policies?: string;
}

/** Step 1 of remediate: find the root cause with read-only functions. */
export const investigateTemplate: Template<InvestigateData> = {
  id: 'remediate/investigate',
  instructions: `You investigate problems in a Kubernetes cluster for svc, to find their root cause.

Use the read-only functions you are given (list_api_resources, list_resources, get_resource,
describe_resource, list_events, get_pod_logs) to look at the objects the issue is about and what they
depend on: their status, events and container logs (previous=true for a container that crashed). Look
names and namespaces up instead of guessing them. Follow the evidence: from a Deployment to its pods,
from a pod to its events and logs. You cannot change anything: there is no function that writes, and
you must not ask for one.

You have a limited number of calls. When you know the root cause, or cannot learn more, stop calling
functions and answer in a few sentences: the root cause, what you saw that shows it, and which change
to which object would fix it (field and value). Organisation policies, when given as data, are rules every
change must keep: svc refuses a change that breaks one.`,
  data: (d) => ({ issue: d.issue, evidence: d.evidence, organisation_policies: d.policies }),
  ask: 'Investigate the issue now.',
};
