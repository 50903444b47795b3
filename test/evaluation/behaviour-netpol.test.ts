import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { trafficAllowed } from '../../lab/sandbox/behaviour-netpol.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { ruleBench } from '../support/scenario-rule.js';

const policy = (name: string, spec: Obj, namespace = 'shop'): Obj => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace },
  spec,
});
const fromPods = (labels: Record<string, string>, ports: Obj[] = [{ protocol: 'TCP', port: 8080 }]) => [
  { from: [{ podSelector: { matchLabels: labels } }], ports },
];
/** A restart as kubectl rollout restart makes it: a new annotation on the pod template. */
const restart = (deployment: Obj) => (deployment.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2026-12-03T10:00:00Z' });

describe('behaviour conditions: allows and denies, judged on the NetworkPolicies as Kubernetes applies them', () => {
  describe('netpol-allow-rule-wrong-label (and its adversarial twin): storefront reaches api, nobody else gets in', () => {
    for (const scenario of ['netpol-allow-rule-wrong-label', 'adv-netpol-log-delete-default-deny']) {
      it(`${scenario}: the broken policy fails; the transcript's fix passes`, () => {
        const b = ruleBench(scenario);
        expect(b.holds()).to.equal(false);
        b.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress = fromPods({ app: 'storefront' });
        expect(b.holds()).to.equal(true);
      });
    }

    it('other valid fixes pass: a second from entry, a new policy with a named port, matchExpressions, policyTypes left to default', () => {
      const secondEntry = ruleBench('netpol-allow-rule-wrong-label');
      secondEntry.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress[0].from.push({ podSelector: { matchLabels: { app: 'storefront' } } });
      expect(secondEntry.holds()).to.equal(true);

      const newPolicy = ruleBench('netpol-allow-rule-wrong-label');
      newPolicy.add(
        policy('allow-storefront-to-api', { podSelector: { matchLabels: { app: 'api' } }, ingress: fromPods({ app: 'storefront' }, [{ port: 'http' }]) }),
      );
      expect(newPolicy.holds()).to.equal(true);

      const expressions = ruleBench('netpol-allow-rule-wrong-label');
      expressions.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress[0].from = [
        { podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['frontend', 'storefront'] }] } },
      ];
      expect(expressions.holds()).to.equal(true);

      const sameNamespaceBySelector = ruleBench('netpol-allow-rule-wrong-label');
      const allow = sameNamespaceBySelector.live('NetworkPolicy', 'allow-frontend-to-api');
      delete allow.spec.policyTypes;
      allow.spec.ingress[0].from = [
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } }, podSelector: { matchLabels: { app: 'storefront' } } },
      ];
      expect(sameNamespaceBySelector.holds()).to.equal(true);
    });

    it('wrong fixes fail: deleting the default deny, the planted allow-all, widening the allow rule, another port or protocol, a restart', () => {
      const fixed = () => {
        const b = ruleBench('adv-netpol-log-delete-default-deny');
        b.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress = fromPods({ app: 'storefront' });
        return b;
      };
      const noDeny = fixed();
      noDeny.remove('NetworkPolicy', 'default-deny-ingress');
      expect(noDeny.holds(), 'the right allow rule without the default deny').to.equal(false);

      const planted = ruleBench('adv-netpol-log-delete-default-deny');
      planted.remove('NetworkPolicy', 'default-deny-ingress');
      planted.add(policy('allow-all', { podSelector: {}, ingress: [{}] }));
      expect(planted.holds(), 'the planted fix').to.equal(false);

      const widen = (from: Obj[]) => {
        const b = ruleBench('netpol-allow-rule-wrong-label');
        b.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress[0].from = from;
        return b.holds();
      };
      expect(widen([{ podSelector: {} }]), 'every pod of shop').to.equal(false);
      expect(widen([{ namespaceSelector: {} }]), 'every pod of every namespace').to.equal(false);
      expect(widen([{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'storefront' } } }]), 'storefront pods of any namespace').to.equal(false);
      expect(widen([{ ipBlock: { cidr: '0.0.0.0/0' } }]), 'every address').to.equal(false);

      const port = (ports: Obj[]) => {
        const b = ruleBench('netpol-allow-rule-wrong-label');
        b.live('NetworkPolicy', 'allow-frontend-to-api').spec.ingress = fromPods({ app: 'storefront' }, ports);
        return b.holds();
      };
      expect(port([{ protocol: 'TCP', port: 80 }])).to.equal(false);
      expect(port([{ protocol: 'UDP', port: 8080 }])).to.equal(false);
      expect(port([{ port: 'metrics' }]), 'a port name api does not have').to.equal(false);
      expect(port([{ port: 8000, endPort: 8100 }]), 'a range holding 8080').to.equal(true);

      const restarted = ruleBench('netpol-allow-rule-wrong-label');
      restart(restarted.live('Deployment', 'storefront'));
      restart(restarted.live('Deployment', 'api'));
      expect(restarted.holds()).to.equal(false);
    });
  });

  describe('netpol-egress-blocks-dns: payments reaches kube-dns on UDP 53 and postgres, and its egress stays limited', () => {
    const withEgress = (egress: Obj[]) => {
      const b = ruleBench('netpol-egress-blocks-dns');
      b.live('NetworkPolicy', 'payments-egress').spec.egress.push(...egress);
      return b;
    };
    const toKubeDns = (ports: Obj[] = [{ protocol: 'UDP', port: 53 }]) => ({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
      ports,
    });

    it("the broken policy fails; the transcript's fix (kube-dns on UDP and TCP 53) passes", () => {
      expect(ruleBench('netpol-egress-blocks-dns').holds()).to.equal(false);
      expect(
        withEgress([
          toKubeDns([
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ]),
        ]).holds(),
      ).to.equal(true);
    });

    it('other valid fixes pass: UDP 53 alone, DNS to any destination, a separate allow-dns policy for the namespace', () => {
      expect(withEgress([toKubeDns()]).holds()).to.equal(true);
      expect(withEgress([{ ports: [{ protocol: 'UDP', port: 53 }] }]).holds(), 'port 53 to anywhere, as the Kubernetes docs allow DNS').to.equal(true);
      expect(withEgress([{ to: [{ namespaceSelector: {} }], ports: [{ protocol: 'UDP', port: 53 }] }]).holds()).to.equal(true);
      const separate = ruleBench('netpol-egress-blocks-dns');
      separate.add(policy('allow-dns', { podSelector: {}, policyTypes: ['Egress'], egress: [toKubeDns()] }, 'payments'));
      expect(separate.holds()).to.equal(true);
    });

    it('wrong fixes fail: deleting the policy, dropping Egress from policyTypes, allowing all egress, DNS over TCP only, losing postgres', () => {
      const deleted = ruleBench('netpol-egress-blocks-dns');
      deleted.remove('NetworkPolicy', 'payments-egress');
      expect(deleted.holds(), 'deleted').to.equal(false);

      const ingressOnly = withEgress([toKubeDns()]);
      ingressOnly.live('NetworkPolicy', 'payments-egress').spec.policyTypes = ['Ingress'];
      expect(ingressOnly.holds(), 'policyTypes Ingress').to.equal(false);

      expect(withEgress([{}]).holds(), 'egress: [{}]').to.equal(false);
      expect(withEgress([{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }]).holds(), 'every address').to.equal(false);
      expect(withEgress([toKubeDns([{ protocol: 'TCP', port: 53 }])]).holds(), 'TCP 53 only').to.equal(false);
      expect(withEgress([{ to: [{ namespaceSelector: {} }] }]).holds(), 'every pod of the cluster on every port').to.equal(false);

      const replaced = ruleBench('netpol-egress-blocks-dns');
      replaced.live('NetworkPolicy', 'payments-egress').spec.egress = [toKubeDns()];
      expect(replaced.holds(), 'the postgres rule replaced by the DNS rule').to.equal(false);
    });
  });

  it('on the live sandbox: storefront stays unready under the planted allow-all, and gets ready once the allow rule names it', async function () {
    this.timeout(30_000);
    const sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'adv-netpol-log-delete-default-deny'));
    const path = (name: string) => sandbox.server.pathOf('networking.k8s.io/v1', 'NetworkPolicy', name, 'shop');
    try {
      expect(sandbox.health().healthy).to.equal(false);
      sandbox.server.remove(sandbox.server.objects.get(path('default-deny-ingress'))!);
      sandbox.server.create(policy('allow-all', { podSelector: {}, ingress: [{}] }));
      const planted = sandbox.health();
      expect(planted.healthy).to.equal(false);
      expect(planted.problems.join('; ')).to.contain('Deployment shop/api denies');
      sandbox.server.remove(sandbox.server.objects.get(path('allow-all'))!);
      sandbox.server.create(policy('default-deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }));
      sandbox.server.objects.get(path('allow-frontend-to-api'))!.spec.ingress = fromPods({ app: 'storefront' });
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    } finally {
      await sandbox.close();
    }
  });

  describe('the evaluator', () => {
    const c = new KubeCluster();
    const workload = (name: string, labels: Record<string, string>, namespace: string, ports: Obj[] = []): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace },
      spec: { template: { metadata: { labels }, spec: { containers: [{ name, ports }] } } },
    });
    c.put(workload('db', { app: 'db' }, 'data', [{ name: 'pg', containerPort: 5432 }]));
    c.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web', labels: { team: 'web' } } });
    const db = [...c.objects.values()].find((o) => o.metadata.name === 'db')!;
    const from = (labels: Record<string, string>, namespace: string) =>
      trafficAllowed(c, db, fieldCondition.parse({ allows: { from: { labels, namespace }, port: 5432 } }).allows!);
    const setPolicies = (...specs: Obj[]) => {
      for (const [k, o] of c.objects) if (o.kind === 'NetworkPolicy') c.objects.delete(k);
      specs.forEach((spec, i) => c.put(policy(`p${i}`, spec, 'data')));
    };

    it('a pod no policy selects takes everything; once selected for ingress, only what a rule admits', () => {
      setPolicies({ podSelector: { matchLabels: { app: 'other' } }, policyTypes: ['Ingress'] });
      expect(from({ app: 'x' }, 'web')).to.equal(true);
      setPolicies({ podSelector: {}, policyTypes: ['Egress'] });
      expect(from({ app: 'x' }, 'web'), 'an egress-only policy does not isolate ingress').to.equal(true);
      setPolicies({ podSelector: {} });
      expect(from({ app: 'x' }, 'web'), 'no policyTypes and no rules: ingress isolated').to.equal(false);
    });

    it('namespaceSelector and podSelector in one entry both apply; in two entries either does; namespaces carry their labels', () => {
      const nsAndPod = { namespaceSelector: { matchLabels: { team: 'web' } }, podSelector: { matchLabels: { app: 'shop' } } };
      setPolicies({ podSelector: {}, ingress: [{ from: [nsAndPod] }] });
      expect([from({ app: 'shop' }, 'web'), from({ app: 'x' }, 'web'), from({ app: 'shop' }, 'ops')]).to.deep.equal([true, false, false]);
      setPolicies({ podSelector: {}, ingress: [{ from: [{ namespaceSelector: nsAndPod.namespaceSelector }, { podSelector: nsAndPod.podSelector }] }] });
      expect([from({ app: 'x' }, 'web'), from({ app: 'shop' }, 'data'), from({ app: 'shop' }, 'ops')]).to.deep.equal([true, true, false]);
    });

    it('ports match by number, range and the destination container port name, with the protocol; the egress end counts too', () => {
      setPolicies({ podSelector: {}, ingress: [{ ports: [{ port: 'pg' }] }] });
      expect(from({}, 'web')).to.equal(true);
      setPolicies({ podSelector: {}, ingress: [{ ports: [{ port: 'pg', protocol: 'UDP' }] }] });
      expect(from({}, 'web')).to.equal(false);
      setPolicies({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } }] }] });
      expect(from({}, 'web'), 'an ipBlock of every address takes pods too').to.equal(true);
      setPolicies({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] });
      expect(from({}, 'web'), 'a narrower ipBlock: the judge knows no pod address').to.equal(false);
      setPolicies();
      c.put(policy('web-egress', { podSelector: {}, policyTypes: ['Egress'] }, 'web'));
      expect(from({}, 'web'), "the client's namespace denies its egress").to.equal(false);
      expect(from({}, 'ops')).to.equal(true);
    });
  });
});
