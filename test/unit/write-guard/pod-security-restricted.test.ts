import { expect } from 'chai';
import { RESTRICTED_CONTROLS, RESTRICTED_VOLUME_TYPES } from '../../../domain/write-guard/pod-security-restricted.js';
import { containerSc, controlCases, podSc, type ControlCase, type EditedPod } from '../../support/pod-views.js';

const windows = (p: EditedPod) => void (p.os = { name: 'windows' });
const sidecar = { name: 'proxy', image: 'ghcr.io/a/proxy:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };

/** Per control: an edit of a restricted pod and exactly what the control reports. */
const CASES: ControlCase[] = [
  {
    control: 'Volume Types',
    name: 'an NFS volume beside allowed ones',
    edit: (p) =>
      void (p.volumes = [
        { name: 'tmp', emptyDir: {} },
        { name: 'share', nfs: { server: 'x', path: '/' } },
      ]),
    found: [{ field: 'volume share', value: 'nfs' }],
  },
  {
    control: 'Privilege Escalation',
    name: 'allowPrivilegeEscalation unset',
    edit: (p) => void delete containerSc(p).allowPrivilegeEscalation,
    found: [{ field: 'container app securityContext.allowPrivilegeEscalation', value: undefined }],
  },
  {
    control: 'Privilege Escalation',
    name: 'unset on a Windows pod (exempt)',
    edit: (p) => (delete containerSc(p).allowPrivilegeEscalation, windows(p)),
    found: [],
  },
  {
    control: 'Running as Non-root',
    name: 'the pod says non-root, a container overrides it',
    edit: (p) => void (containerSc(p).runAsNonRoot = false),
    found: [{ field: 'container app securityContext.runAsNonRoot', value: false }],
  },
  // the pod's value covers only containers that leave it unset: a second container without it, on a pod without it, is reported
  {
    control: 'Running as Non-root',
    name: 'one container sets it, the pod and another do not',
    edit: (p) => ((podSc(p).runAsNonRoot = undefined), (containerSc(p).runAsNonRoot = true), p.containers.push({ ...sidecar })),
    found: [{ field: 'container proxy securityContext.runAsNonRoot', value: undefined }],
  },
  {
    control: 'Running as Non-root user',
    name: 'user 0 in a container',
    edit: (p) => void (containerSc(p).runAsUser = 0),
    found: [{ field: 'container app securityContext.runAsUser', value: 0 }],
  },
  // a uid written as a string is not a number other than 0
  {
    control: 'Running as Non-root user',
    name: 'user "0" as a string',
    edit: (p) => void (podSc(p).runAsUser = '0'),
    found: [{ field: 'securityContext.runAsUser', value: '0' }],
  },
  { control: 'Running as Non-root user', name: 'user 1000', edit: (p) => void (podSc(p).runAsUser = 1000), found: [] },
  {
    control: 'Seccomp (restricted)',
    name: "a container's Unconfined over the pod's RuntimeDefault",
    edit: (p) => void (containerSc(p).seccompProfile = { type: 'Unconfined' }),
    found: [{ field: 'container app securityContext.seccompProfile.type', value: 'Unconfined' }],
  },
  { control: 'Seccomp (restricted)', name: 'unset on a Windows pod (exempt)', edit: (p) => ((podSc(p).seccompProfile = undefined), windows(p)), found: [] },
  {
    control: 'Capabilities (restricted)',
    name: 'drop "all" in lower case',
    edit: (p) => void (containerSc(p).capabilities = { drop: ['all'] }),
    found: [{ field: 'container app securityContext.capabilities.drop', value: 'without ALL' }],
  },
  {
    control: 'Capabilities (restricted)',
    name: 'a default capability added back',
    edit: (p) => void (containerSc(p).capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'CHOWN'] }),
    found: [{ field: 'container app securityContext.capabilities.add', value: 'CHOWN' }],
  },
];

describe('Pod Security Standards: the restricted controls', () => {
  it('are the controls the restricted level adds, each of that level', () => {
    expect(RESTRICTED_CONTROLS.map((c) => c.name)).to.deep.equal([
      'Volume Types',
      'Privilege Escalation',
      'Running as Non-root',
      'Running as Non-root user',
      'Seccomp (restricted)',
      'Capabilities (restricted)',
    ]);
    expect(new Set(RESTRICTED_CONTROLS.map((c) => c.level))).to.deep.equal(new Set(['restricted']));
  });

  controlCases(RESTRICTED_CONTROLS, CASES);
  it('allows no volume type that reaches the node or the network directly', () => {
    for (const t of ['hostPath', 'nfs', 'iscsi', 'gitRepo', 'cephfs']) expect(RESTRICTED_VOLUME_TYPES.has(t), t).to.equal(false);
  });
});
