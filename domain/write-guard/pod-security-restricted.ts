import { capabilitiesAdded, contexts, dig, each, listOf, notAllowed, unset, volumes, type PodSecurityControl } from './pod-security-view.js';

/** The volume types the restricted level allows (core types, and those defined through PersistentVolumes). */
export const RESTRICTED_VOLUME_TYPES: ReadonlySet<string> = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
/** The restricted level, beyond the baseline: current pod hardening practice (written from the standard's text, v1.37). */
export const RESTRICTED_CONTROLS: readonly PodSecurityControl[] = [
  {
    name: 'Volume Types',
    level: 'restricted',
    allows: `volumes of the types ${[...RESTRICTED_VOLUME_TYPES].join(', ')} only`,
    check: (p) =>
      volumes(p).flatMap((v) =>
        Object.keys(v.volume)
          .filter((k) => k !== 'name' && !RESTRICTED_VOLUME_TYPES.has(k))
          .map((k) => ({ field: `volume ${v.name}`, value: k })),
      ),
  },
  {
    name: 'Privilege Escalation',
    level: 'restricted',
    allows: 'allowPrivilegeEscalation false (Windows pods exempt)',
    check: (p) =>
      p.windows
        ? []
        : notAllowed(
            each(p, (c) => [{ field: `${c.label} securityContext.allowPrivilegeEscalation`, value: c.sc.allowPrivilegeEscalation }]),
            (v) => v === false,
          ),
  },
  {
    name: 'Running as Non-root',
    level: 'restricted',
    allows: 'runAsNonRoot true on the pod, or on every container (a container may leave it unset when the pod sets it)',
    check: (p) =>
      each(p, (c) => [{ field: `${c.label} securityContext.runAsNonRoot`, value: c.sc.runAsNonRoot ?? p.sc.runAsNonRoot }]).filter((f) => f.value !== true),
  },
  {
    name: 'Running as Non-root user',
    level: 'restricted',
    allows: 'runAsUser unset or not 0',
    check: (p) => notAllowed(contexts(p, ['runAsUser']), (v) => unset(v) || (typeof v === 'number' && v !== 0)),
  },
  {
    name: 'Seccomp (restricted)',
    level: 'restricted',
    allows: 'seccompProfile.type RuntimeDefault or Localhost on the pod, or on every container (Windows pods exempt)',
    check: (p) => {
      if (p.windows) return [];
      const pod = dig(p.sc, ['seccompProfile', 'type']);
      return each(p, (c) => [{ field: `${c.label} securityContext.seccompProfile.type`, value: dig(c.sc, ['seccompProfile', 'type']) ?? pod }]).filter(
        (f) => f.value !== 'RuntimeDefault' && f.value !== 'Localhost',
      );
    },
  },
  {
    name: 'Capabilities (restricted)',
    level: 'restricted',
    allows: 'capabilities.drop includes ALL, capabilities.add only NET_BIND_SERVICE (Windows pods exempt)',
    check: (p) =>
      p.windows
        ? []
        : each(p, (c) => [
            ...(listOf(dig(c.sc, ['capabilities', 'drop'])).includes('ALL')
              ? []
              : [{ field: `${c.label} securityContext.capabilities.drop`, value: 'without ALL' }]),
            ...capabilitiesAdded(c).filter((f) => f.value !== 'NET_BIND_SERVICE'),
          ]),
  },
];
