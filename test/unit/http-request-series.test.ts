import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { MAX_LABEL_VALUES } from '../../infrastructure/metrics/bounded-labels.js';
import { HttpRequestSeries } from '../../infrastructure/metrics/http-request-series.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The samples of an exposition as `name{sorted labels}` → value, and its HELP/TYPE lines: what a Prometheus server reads from it. */
function samples(text: string): { values: Map<string, number>; meta: string[] } {
  const values = new Map<string, number>();
  const meta: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    if (line.startsWith('#')) {
      meta.push(line);
      continue;
    }
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(m, line).to.not.equal(null);
    const labels = [...(m![2] ?? '').matchAll(/([a-z]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => `${x[1]}=${x[2]}`).sort();
    values.set(`${m![1]}{${labels.join(',')}}`, Number(m![3]));
  }
  return { values, meta };
}

/** The same observations through prom-client's Counter and Histogram, as the adapter recorded them before. */
async function promClientText(observations: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from the request line to the last byte of the answer, by method and route template',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    requests.inc({ method, route, status: String(status) });
    durations.observe({ method, route }, seconds);
  }
  return registry.metrics();
}

describe('HTTP request series (svc_http_requests_total, svc_http_request_duration_seconds)', () => {
  it('writes what prom-client writes for the same requests: every sample, bucket, sum and count, HELP and TYPE', async () => {
    const observations: [string, string, number, number][] = [];
    const routes = ['/healthz', '/api/v1/tools/{toolName}', '/api/v1/runs/{runId}/events', 'unmatched', 'a "quoted\\ route\nwith a newline'];
    // durations on, just under and just over bucket bounds, and past the last one
    const durations = [0.0001, 0.0005, 0.00050001, 0.001, 0.003, 0.05, 0.7, 2.5, 29.9, 61, 400];
    let k = 0;
    for (const route of routes)
      for (const method of ['GET', 'POST'])
        for (const status of [200, 404, 503]) for (let i = 0; i < 3; i++) observations.push([method, route, status, durations[k++ % durations.length]]);
    const series = new HttpRequestSeries(BUCKETS);
    for (const o of observations) series.record(...o);
    const ours = samples(series.render());
    const theirs = samples(await promClientText(observations));
    expect(ours.meta).to.deep.equal(theirs.meta);
    expect(ours.values.size).to.equal(theirs.values.size);
    for (const [key, value] of theirs.values) expect(ours.values.get(key), key).to.be.closeTo(value, 1e-9);
    expect(ours.values.get('svc_http_request_duration_seconds_bucket{le=0.0005,method=GET,route=/healthz}')).to.equal(2);
    expect(ours.values.get('svc_http_requests_total{method=POST,route=unmatched,status=503}')).to.equal(3);
  });

  it('with nothing recorded, writes the two families with no samples, as prom-client does', async () => {
    const ours = samples(new HttpRequestSeries(BUCKETS).render());
    const theirs = samples(await promClientText([]));
    expect(ours.values.size).to.equal(0);
    expect(ours.meta).to.deep.equal(theirs.meta);
  });

  it('stays bounded: past the label limit new routes, methods and statuses count as other, and the series stop growing', () => {
    const series = new HttpRequestSeries(BUCKETS);
    for (let i = 0; i < 5 * MAX_LABEL_VALUES; i++) series.record('GET', `/probe/${i}`, 200, 0.001);
    const { values } = samples(series.render());
    const routes = new Set([...values.keys()].filter((k) => k.startsWith('svc_http_requests_total')).map((k) => /route=([^,}]*)/.exec(k)![1]));
    expect(routes.size).to.be.at.most(MAX_LABEL_VALUES + 1);
    expect(values.get('svc_http_requests_total{method=GET,route=other,status=200}')).to.equal(4 * MAX_LABEL_VALUES);
    const other = new HttpRequestSeries(BUCKETS);
    for (let i = 0; i < 5 * MAX_LABEL_VALUES; i++) other.record(`M${i}`, '/healthz', 100 + i, 0.001);
    const more = samples(other.render()).values;
    const methods = new Set([...more.keys()].map((k) => /method=([^,}]*)/.exec(k)![1]));
    expect(methods.size).to.equal(MAX_LABEL_VALUES + 1);
    const healthz = [...more.entries()].filter(([k]) => k.startsWith('svc_http_requests_total{') && k.includes('route=/healthz'));
    expect(healthz.reduce((n, [, v]) => n + v, 0)).to.equal(5 * MAX_LABEL_VALUES);
    expect(more.get('svc_http_requests_total{method=other,route=/healthz,status=other}')).to.equal(4 * MAX_LABEL_VALUES);
  });
});
