import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { policyRefusal } from '../../domain/orgdata/policy-match.js';
import type { StoredPolicies } from '../actions/policy-source.js';
import type { WriteRefusal } from './write-request.js';

/**
 * The one policy check of every guarded write: why the object a write would
 * leave (its dry run's, null for a delete: nothing is left to check) may not
 * be written under the organisation's policies. A broken policy
 * (`PolicyViolation`, naming it), or policies svc could not all read
 * (`PoliciesUnreadable`: it writes nothing it cannot check).
 */
export function policyCheck(result: KubeObject | null, policies: StoredPolicies): WriteRefusal | undefined {
  if (!result) return undefined;
  if (policies.unreadable)
    return {
      reason: 'PoliciesUnreadable',
      message: `svc writes nothing it cannot check against the organisation's policies: ${policies.unreadable}`,
      causes: [],
    };
  const broken = policyRefusal(result, policies.policies);
  return broken ? { reason: 'PolicyViolation', message: broken, causes: [] } : undefined;
}
