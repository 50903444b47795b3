import { expect } from 'chai';
import { BASELINE_CAPABILITIES, BASELINE_CONTROLS, SAFE_SYSCTLS } from '../../../domain/write-guard/pod-security-baseline.js';
import { containerSc, controlCases, podSc, type ControlCase } from '../../support/pod-views.js';

const APPARMOR = 'container.apparmor.security.beta.kubernetes.io/app';

/** Per control: an edit of a restricted pod and exactly what the control reports. */
const CASES: ControlCase[] = [
  {
    control: 'HostProcess',
    name: "a container's hostProcess",
    edit: (p) => void (containerSc(p).windowsOptions = { hostProcess: true }),
    found: [{ field: 'container app securityContext.windowsOptions.hostProcess', value: true }],
  },
  { control: 'Host Namespaces', name: 'hostPID as the string "true"', edit: (p) => void (p.hostPID = 'true'), found: [{ field: 'hostPID', value: 'true' }] },
  { control: 'Host Namespaces', name: 'hostIPC false', edit: (p) => void (p.hostIPC = false), found: [] },
  {
    control: 'Privileged Containers',
    name: 'a privileged init container',
    edit: (p) => void (p.initContainers = [{ name: 'setup', image: 'ghcr.io/a/x:1', securityContext: { privileged: true } }]),
    found: [{ field: 'init container setup securityContext.privileged', value: true }],
  },
  {
    control: 'Capabilities',
    name: 'an added capability written as one string, not a list',
    edit: (p) => void (containerSc(p).capabilities = { add: 'SYS_ADMIN' }),
    found: [{ field: 'container app securityContext.capabilities.add', value: 'SYS_ADMIN' }],
  },
  {
    control: 'Capabilities',
    name: 'one capability beyond the default set among allowed ones',
    edit: (p) => void (containerSc(p).capabilities = { add: ['CHOWN', 'NET_ADMIN', 'KILL'] }),
    found: [{ field: 'container app securityContext.capabilities.add', value: 'NET_ADMIN' }],
  },
  {
    control: 'HostPath Volumes',
    name: 'a hostPath volume',
    edit: (p) => void (p.volumes = [{ name: 'root', hostPath: { path: '/' } }]),
    found: [{ field: 'volume root hostPath', value: { path: '/' } }],
  },
  { control: 'HostPath Volumes', name: 'a hostPath set null', edit: (p) => void (p.volumes = [{ name: 'root', hostPath: null }]), found: [] },
  {
    control: 'Host Ports',
    name: 'a host port',
    edit: (p) => void (p.containers[0]!.ports = [{ containerPort: 80 }, { containerPort: 81, hostPort: 81 }]),
    found: [{ field: 'container app ports hostPort', value: 81 }],
  },
  {
    control: 'Host Probes / Lifecycle Hooks',
    name: 'a postStart hook reaching another host',
    edit: (p) => void (p.containers[0]!.lifecycle = { postStart: { tcpSocket: { port: 80, host: '10.0.0.1' } } }),
    found: [{ field: 'container app lifecycle.postStart.tcpSocket.host', value: '10.0.0.1' }],
  },
  {
    control: 'AppArmor',
    name: 'the annotation unconfined',
    edit: () => undefined,
    annotations: { [APPARMOR]: 'unconfined' },
    found: [{ field: `annotation ${APPARMOR}`, value: 'unconfined' }],
  },
  { control: 'AppArmor', name: 'the annotation localhost/*', edit: () => undefined, annotations: { [APPARMOR]: 'localhost/web' }, found: [] },
  {
    control: 'SELinux',
    name: 'a super-privileged SELinux type on the pod',
    edit: (p) => void (podSc(p).seLinuxOptions = { type: 'spc_t' }),
    found: [{ field: 'securityContext.seLinuxOptions.type', value: 'spc_t' }],
  },
  {
    control: '/proc Mount Type',
    name: 'an unmasked /proc in an ephemeral container',
    edit: (p) => void (p.ephemeralContainers = [{ name: 'debug', image: 'ghcr.io/a/x:1', securityContext: { procMount: 'Unmasked' } }]),
    found: [{ field: 'ephemeral container debug securityContext.procMount', value: 'Unmasked' }],
  },
  {
    control: 'Seccomp',
    name: 'seccomp Unconfined on the pod',
    edit: (p) => void (podSc(p).seccompProfile = { type: 'Unconfined' }),
    found: [{ field: 'securityContext.seccompProfile.type', value: 'Unconfined' }],
  },
  {
    control: 'Sysctls',
    name: 'an unsafe sysctl among safe ones',
    edit: (p) =>
      void (podSc(p).sysctls = [
        { name: 'net.ipv4.tcp_syncookies', value: '1' },
        { name: 'kernel.msgmax', value: '1' },
      ]),
    found: [{ field: 'securityContext.sysctls', value: 'kernel.msgmax' }],
  },
  // sysctls that are not a list cannot be read item by item: the whole value is reported
  {
    control: 'Sysctls',
    name: 'sysctls as a map',
    edit: (p) => void (podSc(p).sysctls = { 'kernel.msgmax': '1' }),
    found: [{ field: 'securityContext.sysctls', value: { 'kernel.msgmax': '1' } }],
  },
];

describe('Pod Security Standards: the baseline controls', () => {
  it("are the standard's baseline controls, in its order", () => {
    expect(BASELINE_CONTROLS.map((c) => c.name)).to.deep.equal([
      'HostProcess',
      'Host Namespaces',
      'Privileged Containers',
      'Capabilities',
      'HostPath Volumes',
      'Host Ports',
      'Host Probes / Lifecycle Hooks',
      'AppArmor',
      'SELinux',
      '/proc Mount Type',
      'Seccomp',
      'Sysctls',
    ]);
    expect(new Set(BASELINE_CONTROLS.map((c) => c.level))).to.deep.equal(new Set(['baseline']));
  });

  controlCases(BASELINE_CONTROLS, CASES);

  it("allows the runtime's default capabilities and the safe sysctls, not more", () => {
    expect(BASELINE_CAPABILITIES.has('NET_BIND_SERVICE')).to.equal(true);
    for (const dangerous of ['SYS_ADMIN', 'NET_ADMIN', 'NET_RAW', 'SYS_PTRACE', 'SYS_MODULE', 'CAP_CHOWN'])
      expect(BASELINE_CAPABILITIES.has(dangerous), dangerous).to.equal(false);
    for (const unsafe of ['kernel.msgmax', 'net.core.somaxconn', 'vm.overcommit_memory']) expect(SAFE_SYSCTLS.has(unsafe), unsafe).to.equal(false);
  });
});
