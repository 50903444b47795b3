import { expect } from 'chai';
import { namespacesNamedIn } from '../../domain/actions/auto-execution.js';

/** Item 6 of issue 40: a namespace is named only explicitly, never by a word that happens to be a valid name. */
describe('namespaces the caller named: only explicit forms', () => {
  const named: [string, string[]][] = [
    ['web in namespace shop is down', ['shop']],
    ['Web in Namespace Shop is down', ['shop']],
    ['web (namespace: shop) is down', ['shop']],
    ['kubectl get pods --namespace=shop shows it', ['shop']],
    ['kubectl rollout status deploy/web -n shop', ['shop']],
    ['kubectl logs -n=payments api', ['payments']],
    ['shop/web returns 502', ['shop']],
    ['see orders/orders-api and "payments/api"', ['orders', 'payments']],
    ['namespace `team-a` is slow. namespace team-b too.', ['team-a', 'team-b']],
  ];
  for (const [text, expected] of named) it(`"${text}" names ${expected.join(', ')}`, () => expect(namespacesNamedIn(text)).to.deep.equal(expected));

  const none = [
    'web fails with the default settings',
    'api in shop is crashlooping',
    'the kube-system dns is slow',
    'pull of registry.example/shop/web:1.4.20 fails',
    'the apps/v1 Deployment and the batch/v1beta1 CronJob',
    'https://example.com/shop/web is down',
    'see docs at example.com/default',
    'web:8080/health returns 500',
  ];
  for (const text of none) it(`"${text}" names none`, () => expect(namespacesNamedIn(text)).to.deep.equal([]));

  it("an explicit namespace input is named, with the text's own", () => {
    expect(namespacesNamedIn('api is crashlooping', 'shop')).to.deep.equal(['shop']);
    expect(namespacesNamedIn('api in namespace web', 'shop')).to.deep.equal(['shop', 'web']);
  });

  it('is bounded: at most 200 names from a long text', () => {
    const text = Array.from({ length: 400 }, (_, i) => `namespace ns-${i}`).join(', ');
    expect(namespacesNamedIn(text)).to.have.length(200);
  });
});
