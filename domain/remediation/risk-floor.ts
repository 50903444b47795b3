import { RISK_LEVELS, type ClusterAction, type RiskLevel } from '../actions/cluster-action.js';

/**
 * The least risk svc assigns an operation whatever the model says, so a model
 * that labels a disruptive action "low" cannot pass the automatic-mode rule
 * with it: deleting anything but a Pod, or scaling to zero, can take a
 * service down (high); a rollout restart or deleting a Pod restarts
 * containers (medium). Patches and applies keep the model's label, which a
 * person sees beside the dry-run result before approving.
 */
export function riskFloor(action: ClusterAction): RiskLevel {
  switch (action.type) {
    case 'delete':
      return action.target.kind === 'Pod' ? 'medium' : 'high';
    case 'scale':
      return action.replicas === 0 ? 'high' : 'low';
    case 'rolloutRestart':
      return 'medium';
    default:
      return 'low';
  }
}

/** The higher of the model's risk and svc's floor for the operation. */
export function effectiveRisk(action: ClusterAction): RiskLevel {
  const floor = riskFloor(action);
  return RISK_LEVELS.indexOf(floor) > RISK_LEVELS.indexOf(action.risk) ? floor : action.risk;
}

/** The action with its effective risk. */
export function withEffectiveRisk(action: ClusterAction): ClusterAction {
  return { ...action, risk: effectiveRisk(action) };
}
