import { expect } from 'chai';
import { contentFindings, SYSTEM_NAMESPACES, targetFindings } from '../../../domain/write-guard/content-risk.js';
import { at, deployment, DEPLOYMENT, obj, OPEN } from '../../support/write-guard-kit.js';

const PROTECTED = ['kube-system', 'svc'];

describe('write guard: the risk of the target and of the content', () => {
  describe('targetFindings', () => {
    const table: [string, ReturnType<typeof at>, string[]][] = [
      ['a Deployment in an ordinary namespace', DEPLOYMENT, []],
      ['a Secret', at('', 'Secret'), ['Secret is a sensitive kind: credentials and identities']],
      [
        'a Namespace (cluster-scoped and sensitive)',
        at('', 'Namespace', undefined),
        ['Namespace is cluster-scoped: the change is cluster-wide', 'Namespace is a sensitive kind: namespaces, nodes and volumes are the cluster itself'],
      ],
      ['a cluster-scoped custom kind', at('acme.io', 'Widget', undefined), ['Widget is cluster-scoped: the change is cluster-wide']],
      ['a Deployment in kube-system', at('apps', 'Deployment', 'kube-system'), ['kube-system is a system namespace']],
      ["a Deployment in svc's own namespace", at('apps', 'Deployment', 'svc'), ["svc is svc's own namespace"]],
      // only the protected list counts: a look-alike name is an ordinary namespace
      ['a Deployment in kube-system-apps', at('apps', 'Deployment', 'kube-system-apps'), []],
    ];
    for (const [name, target, found] of table) it(name, () => expect(targetFindings(target, PROTECTED)).to.deep.equal(found));

    it('a system namespace is protected only when configured so (the configuration always lists them)', () => {
      expect(SYSTEM_NAMESPACES.has('kube-public')).to.equal(true);
      expect(targetFindings(at('apps', 'Deployment', 'kube-public'), [])).to.deep.equal([]);
      expect(targetFindings(at('apps', 'Deployment', 'kube-public'), ['kube-public'])).to.deep.equal(['kube-public is a system namespace']);
    });
  });

  describe('contentFindings', () => {
    const settings = { ...OPEN, namespaceLabels: undefined };

    it('nothing changed: no finding', () => expect(contentFindings(DEPLOYMENT, deployment(), deployment(), settings)).to.deep.equal({ high: [], medium: [] }));

    it("a sensitive kind's reason is the target's, not repeated for each field", () => {
      const secret = (v: string) => obj('v1', 'Secret', { data: { p: v, q: v } });
      expect(contentFindings(at('', 'Secret'), secret('YQ=='), secret('Yg=='), settings)).to.deep.equal({ high: [], medium: [] });
    });

    it('joins what the fields and the pods say, each reason once', () => {
      const v = contentFindings(DEPLOYMENT, deployment(), deployment({ hostPID: true }, { image: 'evil.example/x:1', sneaky: 1 }), settings);
      expect(v.high.join('\n')).to.match(/hostPID: true breaks the baseline/);
      expect(v.high.join('\n')).to.match(/image evil\.example\/x:1 is from registry evil\.example/);
      expect(v.high.join('\n')).to.match(/does not know what Deployment spec\.template\.spec\.containers\[name=app\]\.sneaky/);
      expect(v.medium).to.include('changes the pod spec at spec.template.spec: pods are replaced');
      expect(new Set(v.high).size).to.equal(v.high.length);
    });
  });
});
