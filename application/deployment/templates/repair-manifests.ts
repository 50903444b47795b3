import type { Template } from '../../ai/template.js';

export interface RepairData {
  attempt: number;
  maxAttempts: number;
  /** The API server's and svc's errors about the last manifests, one per line. */
  errors: string;
}

/** generateManifests: the follow-up after a refused attempt (sent after the model's last answer). */
export const repairManifestsTemplate: Template<RepairData> = {
  id: 'deployment/repair-manifests',
  instructions: 'unused: the follow-up is a user message; the instructions of deployment/generate-manifests still hold',
  data: (d) => ({ errors: d.errors, attempt: `${d.attempt} of ${d.maxAttempts}` }),
  ask: 'The Kubernetes API server (in a server-side dry run) or svc refused those manifests for the reasons in the "errors" data. Fix every error and answer again with the complete {"manifests": [...]} JSON object, all objects included.',
};
