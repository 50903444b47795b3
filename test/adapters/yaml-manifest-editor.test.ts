import { expect } from 'chai';
import { YamlManifestEditor } from '../../infrastructure/gitops/yaml-manifest-editor.js';

const FILE = `# team app
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
data:
  mode: "fast" # quoted on purpose
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the front
spec:
  replicas: 2 # peak traffic
  template:
    metadata:
      annotations:
        team: shop
    spec:
      containers:
        - name: app
          image: nginx:1.25
`;
const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };

describe('YamlManifestEditor (yaml Document API): merge, strategic merge and JSON Patch', () => {
  const editor = new YamlManifestEditor();

  it('patches the matching document of a multi-document file, keeping comments, quotes and the other documents', () => {
    const out = editor.patchObject(
      FILE,
      DEPLOY,
      {
        spec: { replicas: 3, template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-25T10:00:00.000Z' } } } },
      },
      'merge',
    )!;
    expect(out).to.include('replicas: 3 # peak traffic').and.include('name: web # the front').and.include('team: shop');
    expect(out).to.include('kubectl.kubernetes.io/restartedAt: 2026-11-25T10:00:00.000Z');
    expect(out.split('---\n')[0]).to.equal(FILE.split('---\n')[0]);
  });

  it('replaces lists whole and deletes keys for null, as a merge patch does', () => {
    const out = editor.patchObject(
      FILE,
      DEPLOY,
      { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } }, replicas: null } },
      'merge',
    )!;
    expect(out).to.include('image: nginx:1.27').and.not.include('nginx:1.25').and.not.include('replicas');
  });

  it('merges containers by name for a strategic merge patch, keeping the fields and comments the patch does not name', () => {
    const file = FILE.replace('          image: nginx:1.25', '          image: nginx:1.25 # pinned\n          ports:\n            - containerPort: 80');
    const out = editor.patchObject(
      file,
      DEPLOY,
      {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'app', image: 'nginx:1.27' },
                { name: 'sidecar', image: 'envoy:1.30' },
              ],
            },
          },
        },
      },
      'strategic',
    )!;
    expect(out).to.include('image: nginx:1.27 # pinned').and.include('- containerPort: 80').and.include('- name: sidecar');
    const removed = editor.patchObject(out, DEPLOY, { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } }, 'strategic')!;
    expect(removed).to.not.include('sidecar');
    expect(removed).to.include('image: nginx:1.27');
  });

  it('applies JSON Patch operations; a failed test leaves nothing changed', () => {
    const out = editor.patchObject(
      FILE,
      DEPLOY,
      [
        { op: 'replace', path: '/spec/replicas', value: 4 },
        { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'log', image: 'busybox:1.36' } },
        { op: 'remove', path: '/spec/template/metadata/annotations/team' },
      ],
      'json',
    )!;
    expect(out).to.include('replicas: 4 # peak traffic').and.include('- name: log').and.not.include('team: shop');
    expect(editor.patchObject(FILE, DEPLOY, [{ op: 'test', path: '/spec/replicas', value: 9 }], 'json')).to.equal(undefined);
    expect(editor.patchObject(FILE, DEPLOY, [{ op: 'remove', path: '/spec/nothing' }], 'json')).to.equal(undefined);
  });

  it('matches apiVersion, kind, name and a namespace the document names; undefined when absent or not YAML', () => {
    expect(editor.patchObject(FILE, { ...DEPLOY, name: 'api' }, { spec: { replicas: 1 } }, 'merge')).to.equal(undefined);
    expect(editor.patchObject(FILE, { ...DEPLOY, apiVersion: 'apps/v1beta1' }, { spec: { replicas: 1 } }, 'merge')).to.equal(undefined);
    const namespaced = FILE.replace('  name: web # the front', '  name: web # the front\n  namespace: y');
    expect(editor.patchObject(namespaced, DEPLOY, { spec: { replicas: 1 } }, 'merge')).to.equal(undefined);
    expect(editor.patchObject('key: [unclosed', DEPLOY, { spec: {} }, 'merge')).to.equal(undefined);
  });
});
