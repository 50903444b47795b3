import { expect } from 'chai';
import { decideAutoExecution, namespacesNamedIn } from '../../domain/actions/auto-execution.js';
import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import { assessRisk } from '../../domain/actions/risk-floor.js';
import { scopeRefusal } from '../../domain/actions/write-scope.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import { policyRefusal } from '../../domain/orgdata/policy-match.js';
import { parseWriteConfig } from '../../infrastructure/config/write-config.js';
import { deployment } from '../support/operate-fixtures.js';

const common = { description: 'd', rationale: 'r', risk: 'low' as const };
const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const risk = (a: Record<string, unknown>, context = {}) => assessRisk({ ...common, ...a } as ClusterAction, context);

describe('safe writes: risk decided in code, allow-lists, the automatic rule (domain)', () => {
  it('a model labelling a dangerous change "low" cannot lower svc\'s floor: kinds, scope and namespaces are high', () => {
    const crb = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'x' }, roleRef: {}, subjects: [] };
    expect(risk({ type: 'apply', manifest: crb }).risk).to.equal('high');
    expect(risk({ type: 'apply', manifest: crb }).reasons.join())
      .to.contain('cluster-scoped')
      .and.contain('sensitive kind');
    for (const kind of ['Secret', 'ServiceAccount', 'RoleBinding', 'Role'])
      expect(risk({ type: 'patch', target: { ...web, apiVersion: 'v1', kind }, patch: { metadata: { labels: { a: 'b' } } } }).risk, kind).to.equal('high');
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'CustomResourceDefinition', 'Namespace', 'PersistentVolume'])
      expect(risk({ type: 'patch', target: { apiVersion: 'v1', kind, name: 'n' }, patch: { metadata: { labels: { a: 'b' } } } }).risk, kind).to.equal('high');
    expect(risk({ type: 'scale', target: { ...web, namespace: 'kube-system' }, replicas: 3 }).reasons).to.deep.equal(['kube-system is a system namespace']);
    expect(risk({ type: 'scale', target: { ...web, namespace: 'kube-public' }, replicas: 3 }).risk).to.equal('high');
    expect(risk({ type: 'scale', target: { ...web, namespace: 'svc' }, replicas: 3 }, { ownNamespace: 'svc' }).reasons).to.deep.equal([
      "svc is svc's own namespace",
    ]);
    expect(risk({ type: 'delete', target: { ...web, apiVersion: 'v1', kind: 'PersistentVolumeClaim' } }).risk).to.equal('high');
    // the label can only raise
    expect(risk({ type: 'scale', target: web, replicas: 3, risk: 'high' })).to.deep.include({ risk: 'high', reasons: [] });
    expect(risk({ type: 'scale', target: web, replicas: 3 })).to.deep.include({ risk: 'low', reasons: [] });
    expect(risk({ type: 'scale', target: web, replicas: 0 }).risk).to.equal('high');
    expect(risk({ type: 'rolloutRestart', target: web }).risk).to.equal('medium');
    expect(risk({ type: 'delete', target: { ...web, apiVersion: 'v1', kind: 'Pod' } }).risk).to.equal('medium');
  });

  it('a pod template change is at least medium, from the diff or (before a dry run) from the patch', () => {
    const image = { type: 'patch', target: web, patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } } };
    expect(risk(image).risk).to.equal('medium');
    const before = deployment();
    const after = structuredClone(before);
    (after.spec as any).template.spec.containers[0].image = 'nginx:1.28';
    expect(risk(image, { diff: diffSegments(before, after) })).to.deep.include({ risk: 'medium', reasons: ['changes the pod template: pods are replaced'] });
    const labels = structuredClone(before);
    labels.metadata.labels = { app: 'web', team: 'a' };
    expect(risk({ type: 'patch', target: web, patch: { metadata: { labels: { team: 'a' } } } }, { diff: diffSegments(before, labels) }).risk).to.equal('low');
    const cron = { ...web, apiVersion: 'batch/v1', kind: 'CronJob' };
    expect(risk({ type: 'patch', target: cron, patch: { spec: { jobTemplate: { spec: { template: { spec: {} } } } } } }).risk).to.equal('medium');
    expect(risk({ type: 'patch', target: cron, patch: { spec: { schedule: '*/5 * * * *' } } }).risk).to.equal('low');
  });

  it('a diff that removes fields the action does not name is high, naming them; removals the patch names are not', () => {
    const before = deployment();
    const after = structuredClone(before);
    (after.spec as any).template.spec.containers = [{ name: 'web', image: 'nginx:1.28' }];
    const whole = { type: 'patch', target: web, patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } } };
    const r = risk(whole, { diff: diffSegments(before, after) });
    expect(r.risk).to.equal('high');
    expect(r.unnamedRemovals).to.deep.equal(['spec.template.spec.containers[name=web].ports', 'spec.template.spec.containers[name=sidecar]']);
    expect(r.reasons[0]).to.contain('removes fields the action does not name: spec.template.spec.containers[name=web].ports');
    const named = { type: 'patch', target: web, patch: { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } } };
    const noSidecar = structuredClone(before);
    (noSidecar.spec as any).template.spec.containers.pop();
    expect(risk(named, { diff: diffSegments(before, noSidecar) })).to.deep.include({ risk: 'medium', unnamedRemovals: [] });
    const labelGone = structuredClone(before);
    delete labelGone.metadata.labels;
    expect(
      risk({ type: 'patch', target: web, patch: { metadata: { labels: null } } }, { diff: diffSegments(before, labelGone) }).unnamedRemovals,
    ).to.deep.equal([]);
    const ops = [{ op: 'remove', path: '/metadata/labels' }];
    expect(risk({ type: 'patch', target: web, patch: ops }, { diff: diffSegments(before, labelGone) }).unnamedRemovals).to.deep.equal([]);
    expect(risk({ type: 'apply', manifest: labelGone }, { diff: diffSegments(before, labelGone) }).unnamedRemovals).to.deep.equal(['metadata.labels']);
  });

  it('SVC_WRITE_NAMESPACES and SVC_WRITE_KINDS: a target outside is refused, naming the list; empty means all', () => {
    expect(scopeRefusal(web, { namespaces: [], kinds: [] })).to.equal(undefined);
    expect(scopeRefusal(web, { namespaces: ['shop'], kinds: [] })).to.equal(
      'Deployment x/web is in namespace x, outside SVC_WRITE_NAMESPACES (shop): svc writes only in those namespaces',
    );
    expect(scopeRefusal({ ...web, kind: 'ClusterRole', namespace: undefined }, { namespaces: ['x'], kinds: [] })).to.contain(
      'a cluster-scoped object, outside SVC_WRITE_NAMESPACES (x)',
    );
    expect(scopeRefusal(web, { namespaces: ['x'], kinds: [{ kind: 'StatefulSet' }, { kind: 'ConfigMap' }] })).to.equal(
      'Deployment x/web is outside SVC_WRITE_KINDS (StatefulSet, ConfigMap): svc writes only those kinds',
    );
    expect(scopeRefusal(web, { namespaces: ['x'], kinds: [{ kind: 'Deployment' }] })).to.equal(undefined);
    expect(scopeRefusal({ ...web, apiVersion: 'extensions.example/v1' }, { namespaces: ['x'], kinds: [{ kind: 'Deployment' }] })).to.match(
      /outside SVC_WRITE_KINDS \(Deployment\)/,
    );
  });

  it("parses the allow-lists and finds svc's own namespace (SVC_NAMESPACE, POD_NAMESPACE, the service account file)", () => {
    const none = { mode: 'none' } as const;
    expect(
      parseWriteConfig({ SVC_WRITE_NAMESPACES: ' shop, web ,shop', SVC_WRITE_KINDS: 'Deployment,serving.knative.dev/Service,core/ConfigMap' }, none),
    ).to.deep.equal({
      namespaces: ['shop', 'web'],
      kinds: [{ kind: 'Deployment' }, { group: 'serving.knative.dev', kind: 'Service' }, { group: '', kind: 'ConfigMap' }],
      imageRegistries: [],
    });
    expect(parseWriteConfig({ SVC_IMAGE_REGISTRIES: 'ghcr.io, registry.example:5000,ghcr.io' }, none).imageRegistries).to.deep.equal([
      'ghcr.io',
      'registry.example:5000',
    ]);
    expect(() => parseWriteConfig({ SVC_IMAGE_REGISTRIES: 'https://ghcr.io' }, none)).to.throw(/SVC_IMAGE_REGISTRIES/);
    expect(() => parseWriteConfig({ SVC_WRITE_NAMESPACES: 'Shop' }, none)).to.throw(
      /SVC_WRITE_NAMESPACES must be a comma-separated list of namespace names, got "Shop"/,
    );
    expect(() => parseWriteConfig({ SVC_WRITE_KINDS: 'deployments' }, none)).to.throw(/SVC_WRITE_KINDS/);
    const inCluster = { mode: 'in-cluster', host: 'h', port: 443, serviceAccountDir: '/sa' } as const;
    const file = (f: string) => (f === '/sa/namespace' ? 'tools\n' : undefined);
    expect(parseWriteConfig({}, inCluster, file).ownNamespace).to.equal('tools');
    expect(parseWriteConfig({ POD_NAMESPACE: 'ops' }, inCluster, file).ownNamespace).to.equal('ops');
    expect(parseWriteConfig({ SVC_NAMESPACE: 'svc', POD_NAMESPACE: 'ops' }, inCluster, file).ownNamespace).to.equal('svc');
    expect(parseWriteConfig({}, none, file).ownNamespace).to.equal(undefined);
  });

  it('automatic mode never writes a sensitive target, nor in a namespace the caller did not name, nor after a refused preview', () => {
    const base = { mode: 'automatic' as const, confidence: 0.99, confidenceThreshold: 0.5, maxRiskLevel: 'high' as const, namespacesNamed: ['x'] };
    const action = (target: typeof web, over = {}) => ({ risk: 'low' as const, description: 'a', target, sensitive: [] as string[], accepted: true, ...over });
    const crb = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: 'pwn' };
    expect(decideAutoExecution({ ...base, actions: [action(crb as typeof web)] }).reason).to.match(
      /^automatic mode never writes ClusterRoleBinding pwn \(cluster-scoped/,
    );
    const protectedNs = action({ ...web, namespace: 'kube-system' }, { sensitive: ['kube-system is a system namespace'] });
    expect(decideAutoExecution({ ...base, namespacesNamed: ['kube-system'], actions: [protectedNs] }).reason).to.contain('kube-system is a system namespace');
    expect(decideAutoExecution({ ...base, actions: [action({ ...web, namespace: 'y' })] }).reason).to.equal(
      'the issue never names namespace y: automatic mode writes only in namespaces the caller named',
    );
    expect(namespacesNamedIn('web in namespace Shop fails; see payments-v2 (not "pay")')).to.include.members(['shop', 'payments-v2', 'pay', 'web']);
    expect(namespacesNamedIn('web in namespace shop')).not.to.include('payments');
    expect(decideAutoExecution({ ...base, actions: [action(web, { accepted: false })] }).reason).to.equal('1 action(s) were refused before execution: a');
    expect(decideAutoExecution({ ...base, actions: [action(web)] }).execute).to.equal(true);
  });

  it('a policy names itself when an object would break it', () => {
    const policy = {
      id: 'p-1',
      description: 'Deployments run at most 10 replicas',
      constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 10 }],
    };
    expect(policyRefusal(deployment({ replicas: 50 }), [policy])).to.equal(
      'Deployment web would break policy "Deployments run at most 10 replicas" (p-1): spec.replicas must be at most 10, got 50',
    );
    expect(policyRefusal(deployment({ replicas: 10 }), [policy])).to.equal(undefined);
  });
});
