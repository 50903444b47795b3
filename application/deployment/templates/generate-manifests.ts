import type { Template } from '../../ai/template.js';
import type { GeneratedManifests } from '../../../domain/deployment/manifest-checks.js';

export interface GenerateData {
  intent: string;
  /** The solution: description and resources (JSON). */
  solution: string;
  /** Answered questions: id, text, target field, value (JSON). */
  answers: string;
  /** Free text of the open stage. */
  notes?: string;
  /** Policy constraints the objects must satisfy (JSON). */
  constraints?: string;
}

/** generateManifests: the first attempt. */
export const generateManifestsTemplate: Template<GenerateData> = {
  id: 'deployment/generate-manifests',
  instructions: `
You write Kubernetes manifests for a chosen solution.

Rules:
- Write one object per resource the solution needs, using only the kinds and apiVersions of the solution.
- Apply every answer to the field it targets (the "target" of each answer); name objects after the "name" answer.
- Put no namespace in the objects; svc sets it. svc also adds its own labels.
- Every object must satisfy the policy constraints given.
- Workloads: selector.matchLabels must equal labels of the pod template; set container ports, resources and probes where the answers give them.
- No Secrets with real credentials: reference a Secret by name instead.

Answer with one JSON object {"manifests": [ ...Kubernetes objects as JSON... ]}, with no YAML and no other text.`,
  data: (d) => ({ intent: d.intent, solution: d.solution, answers: d.answers, notes: d.notes, constraints: d.constraints }),
  ask: 'Write the manifests as the JSON object described.',
};

/** The shape of a manifests answer, for models not sent the schema (checked against generatedManifestsSchema by a unit test). */
export const manifestsExample: GeneratedManifests = {
  manifests: [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    },
  ],
};
