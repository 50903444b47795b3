import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { figures, load, LOAD_TOKEN, record, rssKiB, startSvcProcess } from './reliability-kit.js';

const SECONDS = Number(process.env.RELIABILITY_LOAD_SECONDS ?? 5);
const headers = { authorization: `Bearer ${LOAD_TOKEN}`, 'content-type': 'application/json' };

describe('reliability: sustained load on a real svc process', function () {
  this.timeout(120_000);
  let svc: Awaited<ReturnType<typeof startSvcProcess>>;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-load-'));
    svc = await startSvcProcess({ SVC_DATA_DIR: dataDir, SVC_RATE_LIMIT_ENABLED: 'false' });
  });
  after(async () => {
    svc?.child.kill('SIGTERM');
    await svc?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the catalog, version and a warm prompt render for 5 s each at 20 connections with zero errors and bounded RSS', async () => {
    const routes = [
      { name: 'GET /api/v1/tools', method: 'GET' as const, path: '/api/v1/tools' },
      { name: 'POST /api/v1/tools/version', method: 'POST' as const, path: '/api/v1/tools/version', body: '{}' },
      {
        name: 'POST /api/v1/prompts/node-pressure',
        method: 'POST' as const,
        path: '/api/v1/prompts/node-pressure',
        body: JSON.stringify({ arguments: { node: 'worker-1', symptom: 'NotReady' } }),
      },
    ];
    // warm-up: caches filled, JIT settled, then the baseline
    for (const r of routes) {
      const res = await fetch(`${svc.url}${r.path}`, { method: r.method, headers, body: r.body });
      expect(res.status, r.name).to.equal(200);
      await load({ url: `${svc.url}${r.path}`, method: r.method, headers, body: r.body, seconds: 1, connections: 5 });
    }
    const before = rssKiB(svc.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(svc.pid))), 200);
    try {
      for (const r of routes) {
        const res = await load({ url: `${svc.url}${r.path}`, method: r.method, headers, body: r.body, seconds: SECONDS, connections: 20 });
        figures.non2xx += res.non2xx;
        record(r.name, `${res.requests} req, ${res.rps} req/s, p99 ${res.p99} ms, non-2xx ${res.non2xx}, errors ${res.errors}`);
        expect(res, r.name).to.deep.include({ non2xx: 0, errors: 0, timeouts: 0 });
        expect(res.requests, r.name).to.be.greaterThan(100);
      }
    } finally {
      clearInterval(sampler);
    }
    await new Promise((r) => setTimeout(r, 500));
    const afterRss = rssKiB(svc.pid);
    record('svc RSS (MiB)', `before ${(before / 1024).toFixed(0)}, peak ${(peak / 1024).toFixed(0)}, after ${(afterRss / 1024).toFixed(0)}`);
    expect(afterRss - before, 'RSS growth over the load, KiB').to.be.below(128 * 1024);
    expect(peak, 'peak RSS, KiB').to.be.below(512 * 1024);
    expect(svc.output()).not.to.match(/"level":(50|60)|"level":"(error|fatal)"/);
  });
});

describe('reliability: the rate limit under load', function () {
  this.timeout(60_000);

  it('answers 429 RATE_LIMITED beyond the budget with no error or 5xx, and keeps /healthz open', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-load-rl-'));
    const svc = await startSvcProcess({ SVC_DATA_DIR: dataDir, SVC_RATE_LIMIT_OTHER: '200', SVC_RATE_LIMIT_WINDOW_S: '60' });
    try {
      const res = await load({ url: `${svc.url}/api/v1/tools`, headers, seconds: 2, connections: 20 });
      record('rate limit (200/60 s) under load', `${res.requests} req: ${JSON.stringify(res.statuses)}`);
      expect(res.errors).to.equal(0);
      expect(res.statuses['2xx']).to.equal(200);
      expect(res.statuses['4xx']).to.equal(res.requests - 200);
      expect(res.statuses['5xx'] ?? 0).to.equal(0);
      const refused = await fetch(`${svc.url}/api/v1/tools`, { headers });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('RATE_LIMITED');
      const health = await load({ url: `${svc.url}/healthz`, seconds: 1, connections: 10 });
      expect(health).to.deep.include({ non2xx: 0, errors: 0 });
    } finally {
      svc.child.kill('SIGTERM');
      await svc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
