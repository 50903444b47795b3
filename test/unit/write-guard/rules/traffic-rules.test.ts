import { expect } from 'chai';
import type { KubeObject } from '../../../../domain/cluster/kube-types.js';
import { kindMatches } from '../../../../domain/write-guard/rules/field-rule.js';
import { TRAFFIC_RULES } from '../../../../domain/write-guard/rules/traffic-rules.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

const service = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec });
const SERVICE_RULES = TRAFFIC_RULES.filter((r) => r.kinds?.some((k) => kindMatches(k, '', 'Service')));
const S = { kind: 'Service' };

const SERVICE_CASES: RuleCase[] = [
  { name: 'a ClusterIP Service created', ...S, path: 'spec.type', to: 'ClusterIP', created: true, rule: 'service.type', risk: 'medium', reason: /ClusterIP/ },
  {
    name: 'a LoadBalancer Service created',
    ...S,
    path: 'spec.type',
    to: 'LoadBalancer',
    created: true,
    rule: 'service.type',
    risk: 'high',
    reason: /outside the cluster/,
  },
  { name: 'a Service turned NodePort', ...S, path: 'spec.type', from: 'ClusterIP', to: 'NodePort', rule: 'service.type', risk: 'high', reason: /NodePort/ },
  {
    name: 'a Service turned ExternalName',
    ...S,
    path: 'spec.type',
    from: 'ClusterIP',
    to: 'ExternalName',
    result: service({ type: 'ExternalName', externalName: 'evil.example' }),
    rule: 'service.type',
    risk: 'high',
    reason: /evil\.example/,
  },
  // a ClusterIP Service's type changed back after creation is still a change of type
  { name: 'a type changed after creation', ...S, path: 'spec.type', from: 'NodePort', to: 'ClusterIP', rule: 'service.type', risk: 'high' },
  {
    name: "a new ClusterIP Service's selector",
    ...S,
    path: 'spec.selector.app',
    to: 'web',
    created: true,
    result: service({ type: 'ClusterIP' }),
    rule: 'service.routing',
    risk: 'medium',
  },
  // created, but exposed: its routing is exposure too
  {
    name: "a new LoadBalancer Service's ports",
    ...S,
    path: 'spec.ports[0].port',
    to: 80,
    created: true,
    result: service({ type: 'LoadBalancer' }),
    rule: 'service.routing',
    risk: 'high',
  },
  {
    name: 'a selector changed',
    ...S,
    path: 'spec.selector.app',
    from: 'web',
    to: 'admin',
    result: service({}),
    rule: 'service.routing',
    risk: 'high',
    reason: /which pods/,
  },
  {
    name: 'an external IP',
    ...S,
    path: 'spec.externalIPs[0]',
    to: '1.2.3.4',
    rule: 'service.exposure',
    risk: 'high',
    reason: /opens the Service \(1\.2\.3\.4\)/,
  },
  {
    name: 'the default internal policy on create',
    ...S,
    path: 'spec.internalTrafficPolicy',
    to: 'Cluster',
    created: true,
    rule: 'service.exposure',
    risk: 'medium',
  },
  { name: 'the internal policy changed', ...S, path: 'spec.internalTrafficPolicy', from: 'Local', to: 'Cluster', rule: 'service.exposure', risk: 'high' },
  { name: 'the health check port', ...S, path: 'spec.healthCheckNodePort', to: 30000, rule: 'service.exposure', risk: 'high', reason: /who may reach/ },
  { name: 'a cluster IP', ...S, path: 'spec.clusterIP', to: '10.0.0.9', rule: 'service.addresses', risk: 'low' },
  { name: 'a Service field the rules do not know', ...S, path: 'spec.externalNames', to: 'x', rule: undefined },
];

const OTHER_CASES: RuleCase[] = [
  { name: 'Knative traffic created', kind: 'Service', path: 'spec.traffic[0].percent', to: 100, created: true, rule: 'knative.traffic', risk: 'medium' },
  { name: 'Knative traffic moved', kind: 'Service', path: 'spec.traffic[0].percent', from: 100, to: 10, rule: 'knative.traffic', risk: 'high' },
  {
    name: 'an Ingress host',
    kind: 'Ingress',
    path: 'spec.rules[0].host',
    to: 'evil.example',
    rule: 'traffic.routes',
    risk: 'high',
    reason: /routes or exposes/,
  },
];

describe('write guard rules: traffic', () => {
  describe('core Service', () => ruleCases(SERVICE_RULES, SERVICE_CASES));
  describe('Knative and routes', () =>
    ruleCases(
      TRAFFIC_RULES.filter((r) => !SERVICE_RULES.includes(r)),
      OTHER_CASES,
    ));

  it('a Knative Service is not a core Service, nor the reverse', () => {
    const ids = (group: string) => TRAFFIC_RULES.filter((r) => r.kinds?.some((k) => kindMatches(k, group, 'Service'))).map((r) => r.id);
    expect(ids('')).to.deep.equal(['service.type', 'service.routing', 'service.exposure', 'service.addresses']);
    expect(ids('serving.knative.dev')).to.deep.equal(['knative.traffic']);
  });

  it('every Gateway API and Istio networking kind routes traffic', () => {
    const routes = TRAFFIC_RULES.find((r) => r.id === 'traffic.routes')!;
    for (const [group, kind] of [
      ['gateway.networking.k8s.io', 'Gateway'],
      ['gateway.networking.k8s.io', 'TLSRoute'],
      ['networking.istio.io', 'VirtualService'],
      ['traefik.io', 'IngressRoute'],
    ])
      expect(
        routes.kinds!.some((k) => kindMatches(k, group, kind)),
        `${group}/${kind}`,
      ).to.equal(true);
    expect(routes.kinds!.some((k) => kindMatches(k, 'networking.k8s.io', 'NetworkPolicy'))).to.equal(false);
  });
});
