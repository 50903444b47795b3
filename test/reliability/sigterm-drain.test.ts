import { expect } from 'chai';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { waitFor } from '../support/svc-process.js';
import { figures, LOAD_TOKEN, record, startSvcProcess } from './reliability-kit.js';

describe('reliability: SIGTERM under load', function () {
  this.timeout(60_000);

  it('drains 20 in-flight requests with 200, refuses new connections after, and exits 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-drain-'));
    const svc = await startSvcProcess({ SVC_DATA_DIR: dataDir, SVC_RATE_LIMIT_ENABLED: 'false', SVC_SHUTDOWN_GRACE_MS: '10000' });
    try {
      // background load on the catalog while the signal arrives
      const background = autocannon({ url: `${svc.url}/api/v1/tools`, headers: { authorization: `Bearer ${LOAD_TOKEN}` }, connections: 10, duration: 3 });
      await new Promise((r) => setTimeout(r, 500));
      // 20 requests in flight: headers sent, the body still arriving
      const body = '{}  ';
      const inflight = Array.from({ length: 20 }, () => {
        const req = http.request(`${svc.url}/api/v1/tools/version`, {
          method: 'POST',
          headers: { authorization: `Bearer ${LOAD_TOKEN}`, 'content-type': 'application/json', 'content-length': body.length },
        });
        const answer = new Promise<number>((resolve, reject) => {
          req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
        });
        req.write(body.slice(0, 1));
        return { req, answer };
      });
      await new Promise((r) => setTimeout(r, 200));
      svc.child.kill('SIGTERM');
      figures.faultsInjected++;
      await waitFor(() => /draining/.test(svc.output()), 'draining');
      for (const f of inflight) f.req.end(body.slice(1));
      const statuses = await Promise.all(inflight.map((f) => f.answer));
      expect(statuses).to.deep.equal(Array(20).fill(200));
      const code = await svc.exited;
      const refused = await fetch(`${svc.url}/healthz`).then(
        () => 'answered',
        (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
      );
      const bg = await background;
      figures.requestsServed += bg['2xx'] + 20;
      record('SIGTERM under load', `20/20 in-flight answered 200; background ${bg['2xx']} x 2xx, ${bg.errors} refused after close; exit ${code}`);
      expect(code).to.equal(0);
      expect(refused).to.equal('ECONNREFUSED');
      expect(svc.output()).to.include('svc stopped');
    } finally {
      svc.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
