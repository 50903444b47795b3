import { expect } from 'chai';
import { fixed, kindLabel, kindMatches, kinds, matches, patternPath, shownPath, valueAt, verdict } from '../../../../domain/write-guard/rules/field-rule.js';
import { segmentsOf } from '../../../support/rule-input.js';

describe('write guard rules: the pattern language and helpers of a rule', () => {
  describe('matches', () => {
    const table: [string, string, boolean][] = [
      ['spec.replicas', 'spec.replicas', true],
      ['spec.replicas', 'spec.replicas.x', false],
      ['spec.replicas', 'spec', false],
      ['metadata.labels.*', 'metadata.labels.app', true],
      ['metadata.labels.*', 'metadata.labels', false],
      ['metadata.labels.*', 'metadata.labels.app.x', false],
      ['spec.ports[].port', 'spec.ports.[].port', true],
      // `*` is one key, never a list item: a list cannot pass for a map
      ['spec.hard.*', 'spec.hard.[]', false],
      ['spec.{strategy,updateStrategy}.type', 'spec.updateStrategy.type', true],
      ['spec.{strategy,updateStrategy}.type', 'spec.strategies.type', false],
      // `**` is anything below, or nothing
      ['spec.template.**', 'spec.template', true],
      ['spec.template.**', 'spec.template.spec.containers.[].image', true],
      ['spec.template.**', 'spec.templates', false],
      ['**.hostPath.**', 'spec.volumes.[].hostPath.path', true],
      ['**.hostPath.**', 'hostPath', true],
      ['**.hostPath.**', 'spec.hostPathX', false],
      ['**', '', true],
    ];
    for (const [pattern, path, ok] of table)
      it(`${pattern} ${ok ? 'claims' : 'does not claim'} ${path || '(the object)'}`, () => expect(matches(pattern, path ? path.split('.') : [])).to.equal(ok));
  });

  describe('kindMatches', () => {
    const table: [string, string, string, string, boolean][] = [
      ['apps', 'Deployment', 'apps', 'Deployment', true],
      ['apps', 'Deployment', 'acme.io', 'Deployment', false],
      ['', 'Service', 'serving.knative.dev', 'Service', false],
      ['*', '*NetworkPolicy', 'cilium.io', 'CiliumNetworkPolicy', true],
      ['*', '*NetworkPolicy', 'cilium.io', 'NetworkPolicyReport', false],
      ['*.kyverno.io', '*', 'reports.kyverno.io', 'PolicyReport', true],
      ['*.kyverno.io', '*', 'kyverno.io', 'ClusterPolicy', false],
      ['*.kyverno.io', '*', 'notkyverno.io', 'ClusterPolicy', false],
      ['rbac.authorization.k8s.io', '*', 'rbac.authorization.k8s.io', 'Role', true],
    ];
    for (const [g, k, group, kind, ok] of table)
      it(`${g || 'core'}/${k} ${ok ? 'names' : 'does not name'} ${group || 'core'}/${kind}`, () =>
        expect(kindMatches({ group: g, kind: k }, group, kind)).to.equal(ok));
  });

  it('patternPath reads list items, by position or by name, as []', () => {
    expect(patternPath(segmentsOf('spec.containers[name=web].env[0].value'))).to.deep.equal(['spec', 'containers', '[]', 'env', '[]', 'value']);
    expect(shownPath(segmentsOf('spec.containers[name=web].image'))).to.equal('spec.containers[name=web].image');
  });

  it('valueAt steps by key, position and name, and stops at what is absent', () => {
    const o = {
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
    };
    expect(valueAt(o, segmentsOf('spec.containers[name=b].image'))).to.equal('y');
    expect(valueAt(o, segmentsOf('spec.containers[0].image'))).to.equal('x');
    expect(valueAt(o, segmentsOf('spec.containers[name=c].image'))).to.equal(undefined);
    expect(valueAt(o, segmentsOf('spec.containers.image'))).to.equal(undefined);
    expect(valueAt(o, segmentsOf('spec[0]'))).to.equal(undefined);
  });

  it('fixed gives its words above low, none at low; verdict leaves out an empty reason', () => {
    const input = { kind: 'Deployment', shown: 'spec.paused' } as Parameters<ReturnType<typeof fixed>>[0];
    expect(fixed('medium', 'pauses it')(input)).to.deep.equal({ risk: 'medium', reason: 'Deployment spec.paused: pauses it' });
    expect(fixed('low', 'pauses it')(input)).to.deep.equal({ risk: 'low' });
    expect(fixed('high')(input)).to.deep.equal({ risk: 'high' });
    expect(verdict('medium', '')).to.deep.equal({ risk: 'medium' });
  });

  it('kinds and kindLabel name the core group', () => {
    expect(kinds('', 'Secret', 'ConfigMap')).to.deep.equal([
      { group: '', kind: 'Secret' },
      { group: '', kind: 'ConfigMap' },
    ]);
    expect(kindLabel({ group: '', kind: 'Secret' })).to.equal('core/Secret');
    expect(kindLabel({ group: 'apps', kind: 'Deployment' })).to.equal('apps/Deployment');
  });
});
