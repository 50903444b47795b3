import type { KubeObject } from '../cluster/kube-types.js';

/** Labels that tie every object of a solution to it (label values allow `sol_<hex>`). */
export const SOLUTION_LABEL = 'svc.dev/solution-id';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'svc';

export function solutionLabels(solutionId: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [SOLUTION_LABEL]: solutionId };
}

/** The label selector of a solution's objects. */
export function solutionSelector(solutionId: string): string {
  return `${SOLUTION_LABEL}=${solutionId}`;
}

/** A copy of `object` carrying the solution's labels (the model's own labels are kept; ours win). */
export function withSolutionLabels(object: KubeObject, solutionId: string): KubeObject {
  const copy = JSON.parse(JSON.stringify(object)) as KubeObject;
  const labels = copy.metadata.labels && typeof copy.metadata.labels === 'object' ? copy.metadata.labels : {};
  copy.metadata.labels = { ...labels, ...solutionLabels(solutionId) };
  return copy;
}
