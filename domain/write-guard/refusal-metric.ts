import type { RefusalReason } from '../ports/metrics.js';

const ALLOW_LIST = new Set(['OutsideWriteScope', 'OutsideSolution', 'InvalidTarget', 'UnsafePatch', 'ImageRegistry']);
const POLICY = new Set(['PolicyViolation', 'PoliciesUnreadable']);

/**
 * The metrics reason of a refusal svc made itself (a write guard or policy
 * code), or undefined for one the API server made (its own reasons: svc
 * refused nothing): the allow-lists, discovery and the image registries are
 * `allow-list`, the organisation's policies `policy`.
 */
export function refusalMetric(code: string): RefusalReason | undefined {
  if (ALLOW_LIST.has(code)) return 'allow-list';
  if (POLICY.has(code)) return 'policy';
  return undefined;
}
