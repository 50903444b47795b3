import { expect } from 'chai';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { fieldFindings } from '../../../domain/write-guard/field-risk.js';
import type { KindRisk } from '../../../domain/write-guard/kind-risk.js';
import { changedLeaves } from '../../../domain/write-guard/leaf-changes.js';
import type { ResolvedTarget } from '../../../domain/write-guard/resolved-target.js';
import { at, deployment, DEPLOYMENT, obj } from '../../support/write-guard-kit.js';

const findings = (target: ResolvedTarget, live: KubeObject | null, result: KubeObject, kindRisks: KindRisk[] = []) =>
  fieldFindings(target, live, result, changedLeaves(live, result), kindRisks);
const WIDGET = at('acme.io', 'Widget');
const widget = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => obj('acme.io/v1', 'Widget', { spec }, meta);

describe('write guard: every changed field judged by the rule table', () => {
  it('a field its kind rates low gives no finding', () => {
    expect(findings(DEPLOYMENT, deployment(), { ...deployment(), spec: { ...(deployment().spec as object), replicas: 3 } })).to.deep.equal({
      high: [],
      medium: [],
    });
  });

  it("a field svc has no rule for is high, named; a kind's medium is given with its rule's reason", () => {
    const live = deployment();
    const v = findings(DEPLOYMENT, live, { ...live, spec: { ...(live.spec as object), minReadySeconds: 30, sneaky: true } });
    expect(v.high).to.deep.equal(['svc does not know what Deployment spec.sneaky does']);
    expect(v.medium).to.deep.equal(['Deployment spec.minReadySeconds: changes how pods are replaced']);
  });

  it('a field in a pod is judged by the pod rules, at least medium, and left to the pod findings to sum up', () => {
    expect(findings(DEPLOYMENT, deployment(), deployment({}, { image: 'ghcr.io/acme/web:2' }))).to.deep.equal({ high: [], medium: [] });
    expect(findings(DEPLOYMENT, deployment(), deployment({}, { sneaky: 'x' })).high).to.deep.equal([
      'svc does not know what Deployment spec.template.spec.containers[name=app].sneaky does',
    ]);
  });

  it('a kind with no rules is high for any change, unless SVC_KIND_RISK states its risk', () => {
    expect(findings(WIDGET, widget({ size: 1 }), widget({ size: 2 })).high).to.deep.equal([
      'svc has no rules for acme.io/Widget: any change is high unless SVC_KIND_RISK states its risk',
      'svc does not know what Widget spec.size does',
    ]);
    expect(findings(WIDGET, widget({ size: 1 }), widget({ size: 2 }), [{ group: 'acme.io', kind: 'Widget', risk: 'medium' }])).to.deep.equal({
      high: [],
      medium: ['SVC_KIND_RISK rates acme.io/Widget medium'],
    });
    expect(findings(WIDGET, widget({ size: 1 }), widget({ size: 2 }), [{ group: 'acme.io', kind: 'Widget', risk: 'low' }])).to.deep.equal({
      high: [],
      medium: [],
    });
  });

  it("a stated risk is for that group's kind only", () => {
    const other = [{ group: 'other.io', kind: 'Widget', risk: 'low' as const }];
    expect(findings(WIDGET, widget({ size: 1 }), widget({ size: 2 }), other).high).to.have.length(2);
  });

  it('what every kind rates high stays high on a kind SVC_KIND_RISK rates low: finalizers, host access', () => {
    const low = [{ group: 'acme.io', kind: 'Widget', risk: 'low' as const }];
    expect(findings(WIDGET, widget({}), widget({}, { finalizers: ['acme.io/keep'] }), low).high).to.deep.equal([
      'changes metadata.finalizers (what keeps or removes the object)',
    ]);
    expect(findings(WIDGET, widget({}), widget({ agent: { hostNetwork: true } }), low).high.join('; ')).to.match(/asks for host access/);
    // and on a kind with no statement, the rule's own reason is given beside "no rules"
    expect(findings(WIDGET, widget({}), widget({}, { finalizers: ['acme.io/keep'] })).high).to.deep.equal([
      'changes metadata.finalizers (what keeps or removes the object)',
    ]);
  });

  it('names the first five unknown fields and counts the rest', () => {
    const spec = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, 1]));
    const v = findings(WIDGET, widget({ a: 0 }), widget(spec));
    expect(v.high).to.have.length(1 + 5 + 1);
    expect(v.high.at(-1)).to.equal('svc does not know what 2 more fields of Widget do');
  });
});
