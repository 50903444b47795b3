import { expect } from 'chai';
import { decideAutoExecution, namespacesNamedIn } from '../../domain/actions/auto-execution.js';
import { scopeRefusal } from '../../domain/actions/write-scope.js';
import { policyRefusal } from '../../domain/orgdata/policy-match.js';
import { parseWriteConfig } from '../../infrastructure/config/write-config.js';
import { deployment } from '../support/operate-fixtures.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };

describe("safe writes: allow-lists, the automatic rule, policies (domain; the risk is the write guard's, test/unit/write-guard-*.test.ts)", () => {
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
      podSecurityLevel: 'baseline',
      kindRisks: [],
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

  it('parses SVC_POD_SECURITY_LEVEL and SVC_KIND_RISK, naming the variable when one is wrong', () => {
    const none = { mode: 'none' } as const;
    expect(parseWriteConfig({ SVC_POD_SECURITY_LEVEL: 'restricted' }, none).podSecurityLevel).to.equal('restricted');
    expect(() => parseWriteConfig({ SVC_POD_SECURITY_LEVEL: 'strict' }, none)).to.throw(
      /SVC_POD_SECURITY_LEVEL must be one of privileged, baseline, restricted, got "strict"/,
    );
    expect(parseWriteConfig({ SVC_KIND_RISK: 'acme.io/BuildJob=medium, example.com/Widget=low' }, none).kindRisks).to.deep.equal([
      { group: 'acme.io', kind: 'BuildJob', risk: 'medium' },
      { group: 'example.com', kind: 'Widget', risk: 'low' },
    ]);
    expect(() => parseWriteConfig({ SVC_KIND_RISK: 'BuildJob=low' }, none)).to.throw(/SVC_KIND_RISK/);
    expect(() => parseWriteConfig({ SVC_KIND_RISK: 'acme.io/BuildJob=none' }, none)).to.throw(/SVC_KIND_RISK/);
    // a kind the guard has rules for is judged by them, never by a stated level
    expect(() => parseWriteConfig({ SVC_KIND_RISK: 'apps/Deployment=low' }, none)).to.throw(/SVC_KIND_RISK.*svc has rules for apps\/Deployment/);
    expect(() => parseWriteConfig({ SVC_KIND_RISK: 'rbac.authorization.k8s.io/ClusterRole=low' }, none)).to.throw(/svc has rules for/);
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
    expect(namespacesNamedIn('web in namespace Shop fails; see payments-v2/api (not "pay")')).to.deep.equal(['shop', 'payments-v2']);
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
