import { expect } from 'chai';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { changedLeaves } from '../../../domain/write-guard/leaf-changes.js';
import { foreignImages, podFindings, type PodCheckSettings } from '../../../domain/write-guard/pod-risk.js';
import { deployment, obj } from '../../support/write-guard-kit.js';

const SETTINGS: PodCheckSettings = { imageRegistries: [], podSecurityLevel: 'baseline' };
const findings = (live: KubeObject | null, result: KubeObject, settings: Partial<PodCheckSettings> = {}) =>
  podFindings(live, result, changedLeaves(live, result), { ...SETTINGS, ...settings });
const secretEnv = { env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'p' } } }] };

describe('write guard: what the pods of a write do', () => {
  it('an unchanged pod is no finding; a changed one is medium (its pods are replaced)', () => {
    expect(findings(deployment(), deployment())).to.deep.equal({ high: [], medium: [] });
    const v = findings(deployment(), deployment({}, { args: ['--fast'] }));
    expect(v.high).to.deep.equal([]);
    expect(v.medium).to.deep.equal(['changes the pod spec at spec.template.spec: pods are replaced']);
  });

  it('a create starts pods', () => expect(findings(null, deployment()).medium).to.include('creates the pod spec at spec.template.spec: pods start'));

  it('a Secret the pod did not read before is high; one it read is not', () => {
    expect(findings(deployment(), deployment({}, secretEnv)).high).to.deep.equal([
      'the pod spec at spec.template.spec reads Secret db, which it did not read before',
    ]);
    expect(findings(deployment({}, secretEnv), deployment({}, { ...secretEnv, args: ['x'] })).high).to.deep.equal([]);
  });

  it('the same Secret moved from env to a volume is still one the pod read', () => {
    const volume = { volumes: [{ name: 's', secret: { secretName: 'db' } }] };
    expect(findings(deployment({}, secretEnv), deployment(volume)).high).to.deep.equal([]);
  });

  it("an image from a registry new to the object is high; from the object's registry or SVC_IMAGE_REGISTRIES, medium", () => {
    expect(findings(deployment(), deployment({}, { image: 'evil.example/x:1' })).high).to.deep.equal([
      'image evil.example/x:1 is from registry evil.example, new to this object',
    ]);
    expect(findings(deployment(), deployment({}, { image: 'ghcr.io/acme/web:2' })).medium).to.include('image ghcr.io/acme/web:1.0 -> ghcr.io/acme/web:2');
    const listed = findings(deployment(), deployment({}, { image: 'registry.example:5000/x:1' }), { imageRegistries: ['registry.example:5000'] });
    expect(listed.high).to.deep.equal([]);
  });

  it('a new image hidden in an image volume or an init container is judged as a container image', () => {
    const volume = findings(deployment(), deployment({ volumes: [{ name: 'tools', image: { reference: 'evil.example/tools:1' } }] }));
    expect(volume.high).to.include('image evil.example/tools:1 is from registry evil.example, new to this object');
    const init = findings(deployment(), deployment({ initContainers: [{ name: 'init', image: 'evil.example/i:1' }] }));
    expect(init.high).to.include('image evil.example/i:1 is from registry evil.example, new to this object');
  });

  it('a baseline violation the change introduces is high even where privileged is enforced', () => {
    const v = findings(deployment(), deployment({ hostPID: true }), { namespaceLabels: { 'pod-security.kubernetes.io/enforce': 'privileged' } });
    expect(v.high).to.deep.equal([
      'the pod spec at spec.template.spec: hostPID: true breaks the baseline Pod Security Standard (Host Namespaces), new in this change',
    ]);
  });

  it('a violation the pod had is high only when the pod changes and the enforced level forbids it', () => {
    const live = deployment({ hostPID: true });
    const touched = deployment({ hostPID: true }, { args: ['x'] });
    expect(findings(live, touched).high).to.deep.equal([
      'the pod spec at spec.template.spec: hostPID: true breaks the baseline Pod Security Standard (Host Namespaces); SVC_POD_SECURITY_LEVEL enforces baseline',
    ]);
    expect(findings(live, touched, { podSecurityLevel: 'privileged' }).high).to.deep.equal([]);
    // a change elsewhere in the object does not touch the pod
    const relabelled = { ...deployment({ hostPID: true }), metadata: { name: 'web', namespace: 'shop', labels: { tier: 'x' } } };
    expect(findings(live, relabelled).high).to.deep.equal([]);
  });

  it("a security context outside any pod (a custom resource's) is held to the baseline when the change introduces a violation", () => {
    const runner = (sc: Record<string, unknown>) => obj('acme.io/v1', 'Runner', { spec: { runner: { securityContext: sc } } });
    const v = findings(runner({}), runner({ privileged: true }));
    expect(v.high.join('; ')).to.match(/the security context at spec\.runner.*privileged: true breaks the baseline/);
  });

  describe('foreignImages (SVC_IMAGE_REGISTRIES)', () => {
    it('names the new images outside the list, and leaves the live ones alone', () => {
      const live = deployment({}, { image: 'docker.io/old:1' });
      expect(foreignImages(live, live, ['ghcr.io'])).to.deep.equal([]);
      expect(foreignImages(live, deployment({}, { image: 'docker.io/old:2' }), ['ghcr.io'])).to.deep.equal(['docker.io/old:2']);
      expect(foreignImages(null, deployment(), ['ghcr.io'])).to.deep.equal([]);
      // a registry is matched whole: a host that starts like a listed one is another
      expect(foreignImages(null, deployment({}, { image: 'ghcr.io.evil.example/x:1' }), ['ghcr.io'])).to.deep.equal(['ghcr.io.evil.example/x:1']);
    });
  });
});
