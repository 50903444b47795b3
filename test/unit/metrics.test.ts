import { expect } from 'chai';
import { DependencyError } from '../../domain/errors.js';
import { BoundedLabels, MAX_LABEL_LENGTH } from '../../infrastructure/metrics/bounded-labels.js';
import { meteredCluster, meteredLedger, meteredLlm } from '../../infrastructure/metrics/metered-ports.js';
import { PrometheusMetrics } from '../../infrastructure/metrics/prometheus-metrics.js';
import { routeTemplate } from '../../interfaces/http/route-template.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeClock } from '../support/fake-clock.js';
import { withinCluster } from '../../application/cluster/current-cluster.js';

const line = (text: string, series: string) => text.split('\n').find((l) => l.startsWith(series));
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

describe('metrics', () => {
  it('route templates: every member id, sub-resource and stray path folds into a bounded set', () => {
    expect(routeTemplate('/api/v1/tools/remediate')).to.equal('/api/v1/tools/{toolName}');
    expect(routeTemplate('/api/v1/runs/run_abc/events')).to.equal('/api/v1/runs/{runId}/events');
    expect(routeTemplate('/api/v1/changes/chg_1_ab/revert/')).to.equal('/api/v1/changes/{id}/revert');
    expect(routeTemplate('/api/v1/prompts/sources')).to.equal('/api/v1/prompts/sources');
    expect(routeTemplate('/docs/swagger-ui.css')).to.equal('/docs');
    for (const stray of ['/', '/api/v1/runs/x/y', '/api/v1/runs/x/events/z', '/api/v2/tools', '/api/v1/tools/a/b', '/etc/passwd'])
      expect(routeTemplate(stray), stray).to.equal('unmatched');
  });

  it('route templates stay right past the remembered paths: a stream of fresh paths, long ones, then the first again', () => {
    for (let i = 0; i < 2000; i++) expect(routeTemplate(`/api/v1/runs/run_${i}`)).to.equal('/api/v1/runs/{runId}');
    expect(routeTemplate(`/api/v1/runs/${'x'.repeat(5000)}/events`)).to.equal('/api/v1/runs/{runId}/events');
    expect(routeTemplate(`/api/v1/runs/${'x'.repeat(5000)}/nope`)).to.equal('unmatched');
    expect(routeTemplate('/api/v1/runs/run_0')).to.equal('/api/v1/runs/{runId}');
    expect(routeTemplate('/api/v1/runs/run_0/')).to.equal('/api/v1/runs/{runId}');
  });

  it('bounds each label: past the limit of distinct values, new ones count as other; long values are cut', () => {
    const labels = new BoundedLabels(3);
    expect(['a', 'b', 'c', 'd', 'a'].map((v) => labels.of('model', v))).to.deep.equal(['a', 'b', 'c', 'other', 'a']);
    expect(labels.of('tool', 'x'.repeat(500))).to.have.length(MAX_LABEL_LENGTH);
    const metrics = new PrometheusMetrics();
    for (let i = 0; i < 1000; i++) metrics.modelCall('openai', `model-${i}`, 'success');
    return metrics.render().then((text) => {
      expect(text.split('\n').filter((l) => l.startsWith('svc_model_calls_total{'))).to.have.length(101);
      expect(line(text, 'svc_model_calls_total{provider="openai",model="other",outcome="success"}')).to.match(/ 900$/);
    });
  });

  it('model calls by provider, model and outcome, with the tokens the answer reported', async () => {
    const metrics = new PrometheusMetrics();
    const llm = meteredLlm(new FakeLlm(['fine', { text: 'again', usage: { inputTokens: 7, outputTokens: 3 } }, new DependencyError('llm', 'no')]), metrics);
    await llm.chat([{ role: 'user', content: 'hi' }]);
    await llm.chat([{ role: 'user', content: 'hi' }], { model: 'other-model' });
    await llm.chat([{ role: 'user', content: 'hi' }]).catch(() => undefined);
    expect(llm.status().model).to.equal('fake-model');
    const text = await metrics.render();
    expect(line(text, 'svc_model_calls_total{provider="fake",model="fake-model",outcome="success"}')).to.match(/ 1$/);
    expect(line(text, 'svc_model_calls_total{provider="fake",model="other-model",outcome="success"}')).to.match(/ 1$/);
    expect(line(text, 'svc_model_calls_total{provider="fake",model="fake-model",outcome="DEPENDENCY_ERROR"}')).to.match(/ 1$/);
    expect(line(text, 'svc_model_tokens_total{provider="fake",model="fake-model",direction="input"}')).to.match(/ 100$/);
    expect(line(text, 'svc_model_tokens_total{provider="fake",model="other-model",direction="output"}')).to.match(/ 3$/);
  });

  it('cluster writes by verb and outcome (dry runs are not writes); ledger appends by outcome', async () => {
    const metrics = new PrometheusMetrics();
    const fake = new FakeCluster();
    const cluster = meteredCluster(fake, metrics);
    await cluster.dryRunApply(DEPLOYMENT);
    await cluster.apply(DEPLOYMENT);
    await cluster.patch({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nope', namespace: 'shop' }, { spec: { replicas: 2 } }).catch(() => undefined);
    expect(await cluster.delete({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' })).to.equal(true);
    expect(fake.writes.map((w) => w.method)).to.deep.equal(['apply', 'delete']);
    const ledger = meteredLedger(new FakeChangeLedger(new FakeClock()), metrics);
    await ledger.append({ bogus: true } as never).catch(() => undefined);
    const text = await metrics.render();
    expect(line(text, 'svc_cluster_writes_total{verb="apply",outcome="success"}')).to.match(/ 1$/);
    expect(line(text, 'svc_cluster_writes_total{verb="patch",outcome="EXECUTION_ERROR"}')).to.match(/ 1$/);
    expect(line(text, 'svc_cluster_writes_total{verb="delete",outcome="success"}')).to.match(/ 1$/);
    expect(text).to.not.match(/verb="dryRun/);
    expect(text).to.match(/^svc_ledger_appends_total\{outcome="(success|error)"\} 1$/m);
  });

  it('without a fleet a write in a cluster scope is counted as ever (no cluster label); with SVC_CLUSTERS by cluster, verb and outcome', async () => {
    const one = new PrometheusMetrics();
    await withinCluster('production', () => meteredCluster(new FakeCluster(), one).apply(DEPLOYMENT));
    const single = await one.render();
    expect(line(single, 'svc_cluster_writes_total{verb="apply",outcome="success"}')).to.match(/ 1$/);
    expect(single).to.not.contain('cluster="');

    const fleet = new PrometheusMetrics({ fleet: true });
    const cluster = meteredCluster(new FakeCluster(), fleet);
    await withinCluster('production', () => cluster.apply(DEPLOYMENT));
    await withinCluster('production', () => cluster.apply(DEPLOYMENT));
    await withinCluster('staging', () => cluster.delete({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }));
    await cluster.apply(DEPLOYMENT); // outside any cluster's scope (the fleet port would refuse it): `none`
    const text = await fleet.render();
    expect(line(text, 'svc_cluster_writes_total{cluster="production",verb="apply",outcome="success"}')).to.match(/ 2$/);
    expect(line(text, 'svc_cluster_writes_total{cluster="staging",verb="delete",outcome="success"}')).to.match(/ 1$/);
    expect(line(text, 'svc_cluster_writes_total{cluster="none",verb="apply",outcome="success"}')).to.match(/ 1$/);
    expect(text).to.not.match(/^svc_cluster_writes_total\{verb=/m);
  });
});
