/** A valid pattern and a valid policy document, as a caller sends them. */
export const patternDoc = {
  description: 'Stateless web application behind an ingress with autoscaling',
  triggers: ['web application', 'stateless http service'],
  suggestedResources: ['Deployment', 'Service', 'Ingress', 'HorizontalPodAutoscaler'],
  rationale: 'The platform team supports this combination',
  createdBy: 'platform-team',
};
export const policyDoc = {
  description: 'Production deployments run at least three replicas',
  triggers: ['production deployment', 'high availability'],
  rationale: 'Zone outages must not take services down',
  createdBy: 'sre',
  constraints: [{ kind: 'Deployment', field: 'spec.replicas', minimum: 3, message: 'production needs 3 replicas' }],
};
