import { expect } from 'chai';
import type { JsonObject } from '../../domain/json-object.js';
import { BASELINE_CAPABILITIES, enforcedLevel, POD_SECURITY_CONTROLS, podSecurityViolations, SAFE_SYSCTLS } from '../../domain/write-guard/pod-security.js';
import { findPods } from '../../domain/write-guard/pod-shapes.js';
import { restrictedPod as restricted } from '../support/pod-views.js';
import { allowed, deployment, deploymentChange, DEPLOYMENT, judge } from '../support/write-guard-kit.js';

type Edit = (p: JsonObject & { containers: JsonObject[] }) => void;
const sc = (p: JsonObject & { containers: JsonObject[] }) => p.containers[0]!.securityContext as JsonObject;
const podSc = (p: JsonObject) => p.securityContext as JsonObject;
const violations = (edit: Edit) => {
  const pod = restricted() as JsonObject & { containers: JsonObject[] };
  edit(pod);
  return podSecurityViolations(findPods({ spec: pod })[0]!);
};

/** Per control: edits the standard allows (no violation of it), and edits it does not (a violation of exactly that control). */
const TABLE: Record<string, { pass: Edit[]; fail: Edit[] }> = {
  HostProcess: {
    pass: [(p) => void (podSc(p).windowsOptions = { hostProcess: false })],
    fail: [(p) => void (podSc(p).windowsOptions = { hostProcess: true }), (p) => void (sc(p).windowsOptions = { hostProcess: true })],
  },
  'Host Namespaces': {
    pass: [(p) => void (p.hostNetwork = false), (p) => void (p.hostPID = null)],
    fail: [(p) => void (p.hostNetwork = true), (p) => void (p.hostPID = true), (p) => void (p.hostIPC = true), (p) => void (p.hostPID = 'true')],
  },
  'Privileged Containers': {
    pass: [(p) => void (sc(p).privileged = false)],
    fail: [(p) => void (sc(p).privileged = true), (p) => void (sc(p).privileged = 'yes')],
  },
  Capabilities: {
    pass: [(p) => void (sc(p).capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] })],
    fail: [
      (p) => void (sc(p).capabilities = { drop: ['ALL'], add: ['SYS_ADMIN'] }),
      (p) => void (sc(p).capabilities = { drop: ['ALL'], add: ['CAP_SYS_ADMIN'] }),
    ],
  },
  'HostPath Volumes': {
    pass: [(p) => void (p.volumes = [{ name: 'tmp', emptyDir: {} }])],
    fail: [(p) => void (p.volumes = [{ name: 'root', hostPath: { path: '/' } }])],
  },
  'Host Ports': {
    pass: [(p) => void (p.containers[0]!.ports = [{ containerPort: 80, hostPort: 0 }])],
    fail: [(p) => void (p.containers[0]!.ports = [{ containerPort: 80, hostPort: 80 }]), (p) => void (p.containers[0]!.ports = [{ hostPort: '80' }])],
  },
  'Host Probes / Lifecycle Hooks': {
    pass: [(p) => void (p.containers[0]!.livenessProbe = { httpGet: { path: '/', port: 80, host: '' } })],
    fail: [
      (p) => void (p.containers[0]!.readinessProbe = { httpGet: { path: '/', port: 80, host: '169.254.169.254' } }),
      (p) => void (p.containers[0]!.startupProbe = { tcpSocket: { port: 6443, host: 'kubernetes.default' } }),
      (p) => void (p.containers[0]!.lifecycle = { preStop: { httpGet: { port: 80, host: '10.0.0.1' } } }),
    ],
  },
  AppArmor: {
    pass: [
      (p) => void (podSc(p).appArmorProfile = { type: 'RuntimeDefault' }),
      (p) => void (sc(p).appArmorProfile = { type: 'Localhost', localhostProfile: 'k8s' }),
    ],
    fail: [(p) => void (podSc(p).appArmorProfile = { type: 'Unconfined' }), (p) => void (sc(p).appArmorProfile = { type: 'Unconfined' })],
  },
  SELinux: {
    pass: [(p) => void (podSc(p).seLinuxOptions = { type: 'container_init_t', level: 's0:c1' })],
    fail: [
      (p) => void (podSc(p).seLinuxOptions = { type: 'spc_t' }),
      (p) => void (sc(p).seLinuxOptions = { user: 'system_u' }),
      (p) => void (sc(p).seLinuxOptions = { role: 'sysadm_r' }),
    ],
  },
  '/proc Mount Type': { pass: [(p) => void (sc(p).procMount = 'Default')], fail: [(p) => void (sc(p).procMount = 'Unmasked')] },
  Seccomp: {
    pass: [(p) => void (sc(p).seccompProfile = { type: 'Localhost', localhostProfile: 'x.json' })],
    fail: [(p) => void (podSc(p).seccompProfile = { type: 'Unconfined' }), (p) => void (sc(p).seccompProfile = { type: 'Unconfined' })],
  },
  Sysctls: {
    pass: [(p) => void (podSc(p).sysctls = [...SAFE_SYSCTLS].map((name) => ({ name, value: '1' })))],
    fail: [
      (p) => void (podSc(p).sysctls = [{ name: 'kernel.msgmax', value: '1' }]),
      (p) => void (podSc(p).sysctls = [{ name: 'net.core.somaxconn', value: '1' }]),
    ],
  },
  'Volume Types': {
    pass: [
      (p) =>
        void (p.volumes = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'].map((t, i) => ({
          name: `v${i}`,
          [t]: {},
        }))),
    ],
    fail: [(p) => void (p.volumes = [{ name: 'n', nfs: { server: 'x', path: '/' } }]), (p) => void (p.volumes = [{ name: 'g', gitRepo: { repository: 'x' } }])],
  },
  'Privilege Escalation': {
    pass: [(p) => void ((p.os = { name: 'windows' }), delete sc(p).allowPrivilegeEscalation)],
    fail: [(p) => void delete sc(p).allowPrivilegeEscalation],
  },
  'Running as Non-root': {
    pass: [(p) => void ((podSc(p).runAsNonRoot = undefined), (sc(p).runAsNonRoot = true))],
    fail: [(p) => void (podSc(p).runAsNonRoot = false), (p) => void (sc(p).runAsNonRoot = false)],
  },
  'Running as Non-root user': {
    pass: [(p) => void (podSc(p).runAsUser = 1000)],
    fail: [(p) => void (podSc(p).runAsUser = 0), (p) => void (sc(p).runAsUser = 0)],
  },
  'Seccomp (restricted)': {
    pass: [(p) => void ((podSc(p).seccompProfile = undefined), (sc(p).seccompProfile = { type: 'RuntimeDefault' }))],
    fail: [(p) => void (podSc(p).seccompProfile = undefined)],
  },
  'Capabilities (restricted)': {
    pass: [(p) => void (sc(p).capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] })],
    fail: [(p) => void (sc(p).capabilities = { drop: ['NET_RAW'] }), (p) => void (sc(p).capabilities = { drop: ['ALL'], add: ['CHOWN'] })],
  },
};

describe('the Pod Security Standards: every control of baseline and restricted, both ways', () => {
  it('the table covers every control the guard checks', () => {
    expect(Object.keys(TABLE).sort()).to.deep.equal(POD_SECURITY_CONTROLS.map((c) => c.name).sort());
  });

  it('a restricted pod meets every control', () => {
    expect(violations(() => undefined)).to.deep.equal([]);
  });

  for (const control of POD_SECURITY_CONTROLS)
    it(`${control.name} (${control.level}): what it allows passes, what it does not is that control's violation`, () => {
      for (const [i, edit] of TABLE[control.name]!.pass.entries()) expect(violations(edit), `pass ${i}`).to.deep.equal([]);
      for (const [i, edit] of TABLE[control.name]!.fail.entries()) {
        const found = violations(edit);
        expect(found.length, `fail ${i}`).to.be.greaterThan(0);
        expect(
          found.map((v) => v.control),
          `fail ${i}`,
        ).to.include(control.name);
        expect(found.filter((v) => v.control === control.name).every((v) => v.level === control.level)).to.equal(true);
      }
    });

  it('the AppArmor annotation of a pod template counts as its field does', () => {
    const pod = (v: string) => findPods({ metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': v } }, spec: restricted() })[0]!;
    expect(podSecurityViolations(pod('runtime/default'))).to.deep.equal([]);
    expect(podSecurityViolations(pod('localhost/k8s-web'))).to.deep.equal([]);
    expect(podSecurityViolations(pod('unconfined')).map((v) => v.control)).to.deep.equal(['AppArmor']);
  });

  it("the namespace's enforce label picks the level, else SVC_POD_SECURITY_LEVEL; a label naming no level is restricted", () => {
    expect(enforcedLevel({ 'pod-security.kubernetes.io/enforce': 'privileged' }, 'restricted').level).to.equal('privileged');
    expect(enforcedLevel({ 'pod-security.kubernetes.io/enforce': 'restricted' }, 'baseline').level).to.equal('restricted');
    expect(enforcedLevel({ 'pod-security.kubernetes.io/enforce': 'Privileged ' }, 'baseline').level).to.equal('restricted');
    expect(enforcedLevel({ 'pod-security.kubernetes.io/warn': 'privileged' }, 'baseline')).to.deep.equal({ level: 'baseline', from: 'SVC_POD_SECURITY_LEVEL' });
    expect(enforcedLevel(undefined, 'restricted').level).to.equal('restricted');
  });
});

describe('the write guard holds changed pods to the Pod Security Standards', () => {
  it('what the baseline allows is not raised for that reason: its capabilities, hostPort 0, the safe sysctls', () => {
    const allowedByBaseline: Parameters<typeof deploymentChange>[0][] = [
      [{}, { securityContext: { capabilities: { add: [...BASELINE_CAPABILITIES] } } }],
      [{}, { ports: [{ containerPort: 8080, hostPort: 0 }] }],
      [{ securityContext: { sysctls: [...SAFE_SYSCTLS].map((name) => ({ name, value: '1' })) } }],
    ];
    for (const change of allowedByBaseline) {
      const v = deploymentChange(change);
      expect(v.risk, v.riskReasons.join('; ')).to.equal('medium');
    }
  });

  it('introducing a baseline violation is high at every level, privileged included', () => {
    for (const level of ['privileged', 'baseline', 'restricted'] as const) {
      const v = deploymentChange([{}, { securityContext: { procMount: 'Unmasked' } }], { settings: { podSecurityLevel: level } });
      expect(v.risk).to.equal('high');
      expect(v.riskReasons.join('; ')).to.match(/procMount: Unmasked breaks the baseline Pod Security Standard \(\/proc Mount Type\), new in this change/);
    }
  });

  it('a changed pod that breaks the level its namespace enforces is high; the same pod where no level forbids it is medium', () => {
    // the fixture pod sets no runAsNonRoot: restricted forbids it, baseline does not
    const restrictedNs = { 'pod-security.kubernetes.io/enforce': 'restricted' };
    const v = deploymentChange([{}, { image: 'ghcr.io/acme/web:1.1' }], { namespaceLabels: restrictedNs });
    expect(v.risk).to.equal('high');
    expect(v.riskReasons.join('; ')).to.match(
      /runAsNonRoot: undefined breaks the restricted Pod Security Standard .*the namespace's pod-security\.kubernetes\.io\/enforce label enforces restricted/,
    );
    expect(deploymentChange([{}, { image: 'ghcr.io/acme/web:1.1' }]).risk).to.equal('medium');
    expect(deploymentChange([{}, { image: 'ghcr.io/acme/web:1.1' }], { settings: { podSecurityLevel: 'restricted' } }).risk).to.equal('high');
    // a pod already on the host network: a new tag is medium where the namespace enforces privileged, high where it enforces baseline
    const live = deployment({ hostNetwork: true });
    const result = deployment({ hostNetwork: true }, { image: 'ghcr.io/acme/web:1.1' });
    const privileged = { 'pod-security.kubernetes.io/enforce': 'privileged' };
    expect(allowed(judge({ target: DEPLOYMENT, live, result, namespaceLabels: privileged })).risk).to.equal('medium');
    const baseline = allowed(judge({ target: DEPLOYMENT, live, result }));
    expect(baseline.risk).to.equal('high');
    expect(baseline.riskReasons.join('; ')).to.match(/hostNetwork: true breaks the baseline .*SVC_POD_SECURITY_LEVEL enforces baseline/);
  });
});
