import { expect } from 'chai';
import { parseKindRisk } from '../../../domain/write-guard/kind-risk.js';

describe('write guard: SVC_KIND_RISK entries', () => {
  it('reads group/Kind=level, the core group as core/ or /', () => {
    expect(parseKindRisk('acme.io/BuildJob=medium')).to.deep.equal({ group: 'acme.io', kind: 'BuildJob', risk: 'medium' });
    expect(parseKindRisk(' acme.io/BuildJob = low ')).to.deep.equal({ group: 'acme.io', kind: 'BuildJob', risk: 'low' });
    expect(parseKindRisk('core/Widget=high')).to.deep.equal({ group: '', kind: 'Widget', risk: 'high' });
    expect(parseKindRisk('/Widget=low')).to.deep.equal({ group: '', kind: 'Widget', risk: 'low' });
  });

  const refused: [string, RegExp][] = [
    ['BuildJob=low', /name the kind with its API group/],
    ['acme.io/BuildJob', /is not kind=level/],
    ['acme.io/BuildJob=', /is not kind=level/],
    ['acme.io/BuildJob=none', /is not kind=level/],
    ['acme.io/BuildJob=LOW', /is not kind=level/],
    ['acme.io/buildjob=low', /is not a kind/],
    ['Acme.IO/BuildJob=low', /is not an API group/],
    // kinds the table has rules for are judged by them: a stated level may not lower them
    ['apps/Deployment=low', /svc has rules for apps\/Deployment/],
    ['core/Secret=low', /svc has rules for core\/Secret/],
    ['rbac.authorization.k8s.io/ClusterRole=low', /svc has rules for/],
    ['cilium.io/CiliumNetworkPolicy=low', /svc has rules for/],
    ['gateway.networking.k8s.io/HTTPRoute=low', /svc has rules for/],
  ];
  for (const [entry, why] of refused) it(`refuses ${entry}`, () => expect(() => parseKindRisk(entry)).to.throw(why));

  it('a kind of the same name in another group is not the one with rules', () => {
    expect(parseKindRisk('acme.io/Deployment=low')).to.deep.equal({ group: 'acme.io', kind: 'Deployment', risk: 'low' });
  });
});
