import type { LoopRecord } from '../../ai/final-answer.js';
import type { Template } from '../../ai/template.js';
import type { InvestigateData } from './investigate.js';
import type { OperationPlan } from '../../../domain/operations/operation-plan.js';

export interface PlanData extends InvestigateData, LoopRecord {
  /** Set when the investigation was cut short: which limit stopped it. */
  investigationNote?: string;
}

/** Step 2 of operate: the change as a JSON plan of Kubernetes API operations, from what the investigation read (a fresh conversation). */
export const planTemplate: Template<PlanData> = {
  id: 'operate/plan',
  instructions: `You plan day-2 operations on a Kubernetes cluster for svc. You read the live state of what the request
names with read-only functions; the calls you made and what they returned are given as data. Now give
the operation as one JSON object with the fields summary, risk and actions.

Each action is one Kubernetes API operation, applied in the order given:
- "scale": target and replicas, to change a replica count;
- "patch": target and a patch changing fields of an existing object: for built-in kinds a strategic merge
  patch naming only the fields that change (containers, env, volumeMounts and volumes merge by name, so
  to change one image send that container's name and image only; null removes a field); for custom
  resources the fields to set (a list you send replaces the whole list) or a list of JSON Patch
  operations (RFC 6902) to change single list items;
- "apply": a whole manifest (apiVersion, kind, metadata with name and namespace, spec), server-side apply,
  to create an object or to set it whole;
- "rolloutRestart": target, to restart the pods of a Deployment, StatefulSet or DaemonSet;
- "delete": target, only when the request asks to remove something.
A target has apiVersion, kind, name and namespace. Every action has a description, a risk (low: no
disruption; medium: a brief disruption or restarts; high: an outage or data loss possible) and a rationale.

Propose the smallest change that does what was asked and nothing that was not asked. summary says what
changes and why, with the current values. risk is the risk of the whole operation. When nothing should
change, or the request cannot be done safely, give no actions and say why in summary.

When refinements are given, they correct or narrow the intent and take precedence over it. When a previous
plan is given, it was shown to the person and not accepted (or its dry run was refused): plan again.

Every action is dry-run by the API server and shown to a person, who approves it before anything is applied.`,
  data: (d) => ({
    intent: d.intent,
    refinements: d.refinements.length ? d.refinements.map((r, i) => `${i + 1}. ${r}`).join('\n') : undefined,
    previous_plan: d.previousPlan,
    evidence: d.evidence,
    investigation: d.investigation,
    your_findings: d.findings,
    investigation_note: d.investigationNote,
  }),
  ask: 'Answer with only the JSON object, no other text.',
};

/** The shape of a plan, for models not sent the schema (checked against operationPlanSchema by a unit test). */
export const planExample: OperationPlan = {
  summary: 'Deployment shop/api runs 2 replicas; scale it to 4 as asked.',
  risk: 'low',
  actions: [
    {
      type: 'scale',
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', namespace: 'shop' },
      replicas: 4,
      description: 'Scale api from 2 to 4 replicas',
      risk: 'low',
      rationale: 'The request asks for 4 replicas; adding pods disrupts nothing',
    },
  ],
};
