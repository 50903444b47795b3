import { POD_SECURITY_LEVELS, type PodSecurityLevel } from './pod-security-levels.js';
import { BASELINE_CONTROLS } from './pod-security-baseline.js';
import { RESTRICTED_CONTROLS } from './pod-security-restricted.js';
import { viewOf, type PodSecurityControl } from './pod-security-view.js';
import type { FoundPod } from './pod-shapes.js';

export { BASELINE_CAPABILITIES, SAFE_SYSCTLS } from './pod-security-baseline.js';
export { RESTRICTED_VOLUME_TYPES } from './pod-security-restricted.js';

/**
 * The Kubernetes Pod Security Standards (as published for v1.37), written
 * from the standard's text: each control names the fields it restricts and
 * the values it allows; anything else violates it. `baseline` prevents
 * known privilege escalations; `restricted` adds current hardening practice.
 * Pure: judges one pod found by shape (pod-shapes.ts).
 */
export { POD_SECURITY_LEVELS, type PodSecurityLevel };

/** The namespace label Pod Security Admission enforces. */
export const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';

/** One field of a pod that a control does not allow, with its value. */
export interface PodSecurityViolation {
  level: 'baseline' | 'restricted';
  control: string;
  /** `hostPID`, `container web securityContext.privileged`, `annotation container.apparmor...`. */
  field: string;
  value: string;
}

/** Every control of the baseline and restricted levels, in the standard's order. */
export const POD_SECURITY_CONTROLS: readonly PodSecurityControl[] = [...BASELINE_CONTROLS, ...RESTRICTED_CONTROLS];

/** Every field of the pod that breaks a control of the baseline or restricted level. */
export function podSecurityViolations(pod: FoundPod): PodSecurityViolation[] {
  const view = viewOf(pod);
  return POD_SECURITY_CONTROLS.flatMap((c) =>
    c.check(view).map((f) => ({
      level: c.level,
      control: c.name,
      field: f.field,
      value: typeof f.value === 'string' ? f.value : (JSON.stringify(f.value) ?? 'undefined'),
    })),
  );
}

/** Whether a violation breaks `level` (a restricted pod must also meet the baseline; privileged allows anything). */
export const violates = (v: PodSecurityViolation, level: PodSecurityLevel): boolean =>
  level === 'restricted' || (level === 'baseline' && v.level === 'baseline');

/**
 * The level a namespace enforces: its `pod-security.kubernetes.io/enforce`
 * label, else svc's setting (SVC_POD_SECURITY_LEVEL), and for a label that
 * names no level, restricted (as Pod Security Admission reads one).
 */
export function enforcedLevel(labels: Readonly<Record<string, string>> | undefined, fallback: PodSecurityLevel): { level: PodSecurityLevel; from: string } {
  const label = labels?.[ENFORCE_LABEL];
  if (label === undefined) return { level: fallback, from: 'SVC_POD_SECURITY_LEVEL' };
  const level = (POD_SECURITY_LEVELS as readonly string[]).includes(label) ? (label as PodSecurityLevel) : 'restricted';
  return { level, from: `the namespace's ${ENFORCE_LABEL} label` };
}
