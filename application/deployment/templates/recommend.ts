import type { Template } from '../../ai/template.js';
import type { OrgContext } from '../org-context.js';
import type { RecommendationAnswer } from '../recommend.js';

export interface RecommendData {
  intent: string;
  final: boolean;
  /** `apiVersion kind` lines from API discovery. */
  served: string[];
  org: OrgContext;
}

/** recommend: from an intent to up to three ranked solutions built from kinds the cluster serves. */
export const recommendTemplate: Template<RecommendData> = {
  id: 'deployment/recommend',
  instructions: `
You are a Kubernetes platform engineer. A user states what they need deployed; you propose up to 3 ways to run it in their cluster, best first.

Rules:
- Use only kinds listed in the "served" data (apiVersion and kind exactly as listed). Never invent a kind.
- Prefer the organisation's patterns when they fit, and name the ones you applied by id in patternsApplied.
- Name every policy that applies by id in policiesRespected; a solution must not break a policy.
- Each solution: score 0-100 (how well it meets the intent), a description of one to three sentences, and the resources it uses (kind, apiVersion, purpose).
- If the intent is too vague to choose resources (no idea what software runs or what it is for), answer clarity "vague" with guidance: short questions the user should answer in a refined intent, and no solutions. When "final" is "true", the intent is final: never answer "vague", always propose solutions.

Answer with one JSON object: {"clarity": "clear" | "vague", "guidance": [string], "solutions": [{"score": number, "description": string, "resources": [{"kind": string, "apiVersion": string, "purpose": string}], "patternsApplied": [string], "policiesRespected": [string]}]}.`,
  data: (d) => ({
    intent: d.intent,
    final: String(d.final),
    served: d.served.join('\n'),
    capabilities: d.org.capabilities.length ? JSON.stringify(d.org.capabilities) : undefined,
    patterns: d.org.patterns.length ? JSON.stringify(d.org.patterns) : undefined,
    policies: d.org.policies.length ? JSON.stringify(d.org.policies) : undefined,
  }),
  ask: 'Propose the solutions for this intent as the JSON object described.',
};

/** The shape of a recommendation, for models not sent the schema (checked against recommendationSchema by a unit test). */
export const recommendationExample: RecommendationAnswer = {
  clarity: 'clear',
  solutions: [
    {
      score: 85,
      description: 'PostgreSQL 16 as a StatefulSet with one replica, a persistent volume and a ClusterIP Service',
      resources: [
        { kind: 'StatefulSet', apiVersion: 'apps/v1', purpose: 'runs the database with stable storage' },
        { kind: 'Service', apiVersion: 'v1', purpose: 'a stable address for the database' },
      ],
      patternsApplied: [],
      policiesRespected: [],
    },
  ],
};
