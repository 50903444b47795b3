import {
  capabilitiesAdded,
  contexts,
  dig,
  each,
  HOOKS,
  listOf,
  notAllowed,
  PROBES,
  unset,
  unsetOr,
  volumes,
  type PodSecurityControl,
} from './pod-security-view.js';
import { asJsonObject } from '../json-object.js';

/** Capabilities the baseline allows a container to add (the container runtime's default set). */
export const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/** The "safe" sysctls: namespaced in the pod and isolated from other pods and processes on the node. */
export const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);

const SELINUX_TYPES = ['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

/** The baseline level: it prevents known privilege escalations (written from the standard's text, v1.37). */
export const BASELINE_CONTROLS: readonly PodSecurityControl[] = [
  {
    name: 'HostProcess',
    level: 'baseline',
    allows: 'windowsOptions.hostProcess unset or false',
    check: (p) => notAllowed(contexts(p, ['windowsOptions', 'hostProcess']), (v) => unsetOr(v, false)),
  },
  {
    name: 'Host Namespaces',
    level: 'baseline',
    allows: 'hostNetwork, hostPID, hostIPC unset or false',
    check: (p) =>
      notAllowed(
        ['hostNetwork', 'hostPID', 'hostIPC'].map((k) => ({ field: k, value: p.spec[k] })),
        (v) => unsetOr(v, false),
      ),
  },
  {
    name: 'Privileged Containers',
    level: 'baseline',
    allows: 'securityContext.privileged unset or false',
    check: (p) =>
      notAllowed(
        each(p, (c) => [{ field: `${c.label} securityContext.privileged`, value: c.sc.privileged }]),
        (v) => unsetOr(v, false),
      ),
  },
  {
    name: 'Capabilities',
    level: 'baseline',
    allows: `capabilities.add only ${[...BASELINE_CAPABILITIES].join(', ')}`,
    check: (p) => each(p, (c) => capabilitiesAdded(c).filter((f) => !BASELINE_CAPABILITIES.has(f.value as string))),
  },
  {
    name: 'HostPath Volumes',
    level: 'baseline',
    allows: 'no hostPath volume',
    check: (p) =>
      volumes(p)
        .filter((v) => 'hostPath' in v.volume && !unset(v.volume.hostPath))
        .map((v) => ({ field: `volume ${v.name} hostPath`, value: v.volume.hostPath })),
  },
  {
    name: 'Host Ports',
    level: 'baseline',
    allows: 'hostPort unset or 0',
    check: (p) =>
      each(p, (c) =>
        notAllowed(
          listOf(c.fields.ports).map((port) => ({ field: `${c.label} ports hostPort`, value: asJsonObject(port).hostPort })),
          (v) => unsetOr(v, 0),
        ),
      ),
  },
  {
    name: 'Host Probes / Lifecycle Hooks',
    level: 'baseline',
    allows: 'httpGet.host and tcpSocket.host of probes and lifecycle hooks unset or ""',
    check: (p) =>
      each(p, (c) =>
        notAllowed(
          [...PROBES.map((k) => [k]), ...HOOKS.map((k) => ['lifecycle', k])].flatMap((at) =>
            ['httpGet', 'tcpSocket'].map((h) => ({ field: `${c.label} ${[...at, h, 'host'].join('.')}`, value: dig(c.fields, [...at, h, 'host']) })),
          ),
          (v) => unsetOr(v, ''),
        ),
      ),
  },
  {
    name: 'AppArmor',
    level: 'baseline',
    allows: 'appArmorProfile.type unset, RuntimeDefault or Localhost; the AppArmor annotation unset, runtime/default or localhost/*',
    check: (p) => [
      ...notAllowed(contexts(p, ['appArmorProfile', 'type']), (v) => unsetOr(v, 'RuntimeDefault', 'Localhost')),
      ...Object.entries(p.annotations)
        .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION) && !(v === 'runtime/default' || (typeof v === 'string' && v.startsWith('localhost/'))))
        .map(([k, v]) => ({ field: `annotation ${k}`, value: v })),
    ],
  },
  {
    name: 'SELinux',
    level: 'baseline',
    allows: `seLinuxOptions.type unset, "" or ${SELINUX_TYPES.join(', ')}; seLinuxOptions.user and .role unset or ""`,
    check: (p) => [
      ...notAllowed(contexts(p, ['seLinuxOptions', 'type']), (v) => unsetOr(v, '', ...SELINUX_TYPES)),
      ...notAllowed([...contexts(p, ['seLinuxOptions', 'user']), ...contexts(p, ['seLinuxOptions', 'role'])], (v) => unsetOr(v, '')),
    ],
  },
  {
    name: '/proc Mount Type',
    level: 'baseline',
    allows: 'procMount unset or Default',
    check: (p) =>
      notAllowed(
        each(p, (c) => [{ field: `${c.label} securityContext.procMount`, value: c.sc.procMount }]),
        (v) => unsetOr(v, 'Default'),
      ),
  },
  {
    name: 'Seccomp',
    level: 'baseline',
    allows: 'seccompProfile.type unset, RuntimeDefault or Localhost (never Unconfined)',
    check: (p) => notAllowed(contexts(p, ['seccompProfile', 'type']), (v) => unsetOr(v, 'RuntimeDefault', 'Localhost')),
  },
  {
    name: 'Sysctls',
    level: 'baseline',
    allows: `only the safe sysctls: ${[...SAFE_SYSCTLS].join(', ')}`,
    check: (p) =>
      unset(p.sc.sysctls)
        ? []
        : Array.isArray(p.sc.sysctls)
          ? p.sc.sysctls.map((s) => ({ field: 'securityContext.sysctls', value: asJsonObject(s).name })).filter((f) => !SAFE_SYSCTLS.has(f.value as string))
          : [{ field: 'securityContext.sysctls', value: p.sc.sysctls }],
  },
];
