import type { Template } from '../../ai/template.js';

export interface InvestigateData {
  intent: string;
  evidence?: string;
  /** Every refinedIntent so far, oldest first. */
  refinements: string[];
  /** The plan being replaced (JSON text), with its dry-run verdicts. */
  previousPlan?: string;
  /** The organisation's policies that apply (policy-source.ts), as text. */
  policies?: string;
}

/** Step 1 of operate (start and refine): read the live state of what the intent names, with read-only functions. */
export const investigateTemplate: Template<InvestigateData> = {
  id: 'operate/investigate',
  instructions: `You plan day-2 operations on a Kubernetes cluster for svc: changes to workloads that already run
(scale, change an image or a setting, resources, environment, labels, a restart, a roll back).

First read the current state of every object the request names, with the read-only functions you are given
(list_resources, get_resource, describe_resource, list_events, list_api_resources). Look names and namespaces
up instead of guessing them. Read only what the change needs. You cannot change anything at this step.

When you know the live state, answer in a few sentences: which objects exist, the current values of the
fields the request is about, and exactly which fields should change to what. If the request is ambiguous,
names something that does not exist, or needs nothing changed, say so.

When refinements are given, they correct or narrow the intent and take precedence over it. When a previous
plan is given, it was shown to the person and not accepted (or its dry run was refused): plan again.
Organisation policies, when given as data, are rules every change must keep: svc refuses a change that
breaks one.`,
  data: (d) => ({
    intent: d.intent,
    refinements: d.refinements.length ? d.refinements.map((r, i) => `${i + 1}. ${r}`).join('\n') : undefined,
    previous_plan: d.previousPlan,
    evidence: d.evidence,
    organisation_policies: d.policies,
  }),
  ask: 'Investigate the current state now, then describe the change.',
};
