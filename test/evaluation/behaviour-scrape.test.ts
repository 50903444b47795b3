import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { behaviourHolds } from '../../lab/sandbox/behaviour-conditions.js';
import { scrapedAt } from '../../lab/sandbox/behaviour-scrape.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';

/** The pods of op-prometheus-scrape-annotations: orders, serving http on 8080, metrics on 9090, no annotation yet. */
const template = (annotations?: Record<string, unknown>, ports: number[] = [8080]): Obj => ({
  metadata: { labels: { app: 'orders' }, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'orders', image: 'orders:3', ports: ports.map((containerPort) => ({ containerPort })) }] },
});
const WANTED = { port: 9090, path: '/metrics' };

describe('scraped: Prometheus scrapes the pods at the port and path, however the annotations say it', () => {
  it('fails the pods without annotations (the request), and passes the fix the transcript makes', () => {
    expect(scrapedAt(template(), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'prometheus.io/path': '/metrics' }), WANTED)).to.equal(true);
  });

  it('passes other valid spellings: the default path left out, True, a declared container port instead of the port annotation', () => {
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'True', 'prometheus.io/port': ' 9090' }), WANTED)).to.equal(true);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true' }, [9090]), WANTED)).to.equal(true);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true' }, [8080, 9090]), { port: 9090 })).to.equal(true);
  });

  it('fails the wrong ones: the serving port, another path, no scrape annotation or false, a port only declared while the annotation names another', () => {
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true' }), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' }), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'prometheus.io/path': '/prometheus' }), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/port': '9090' }), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'false', 'prometheus.io/port': '9090' }), WANTED)).to.equal(false);
    expect(scrapedAt(template({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' }, [9090]), WANTED)).to.equal(false);
  });

  it('is a condition of the scenario format, judged on the workload', () => {
    const c = new KubeCluster();
    c.put({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'orders', namespace: 'api' },
      spec: { template: template({ 'prometheus.io/scrape': 'true' }, [9090]) },
    });
    const deployment = [...c.objects.values()].find((o) => o.kind === 'Deployment');
    expect(behaviourHolds(c, fieldCondition.parse({ scraped: { port: 9090 } }), deployment)).to.equal(true);
    expect(behaviourHolds(c, fieldCondition.parse({ scraped: { port: 8080 } }), deployment)).to.equal(false);
    expect(fieldCondition.safeParse({ scraped: { port: 9090, path: 'metrics' } }).success).to.equal(false);
    expect(fieldCondition.safeParse({ scraped: { port: 9090 }, path: 'spec' }).success).to.equal(false);
  });
});
