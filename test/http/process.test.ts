import http from 'node:http';
import { expect } from 'chai';
import { runSvc as run, waitFor } from '../support/svc-process.js';

describe('the server process', () => {
  it('refuses to start open on a non-loopback bind and says what to set', async () => {
    const p = run({ HOST: '0.0.0.0', PORT: '0' });
    expect(await p.exited).to.equal(2);
    expect(p.output()).to.include('SVC_AUTH_TOKEN').and.include('SVC_ALLOW_UNAUTHENTICATED=true');
  });

  it('stops on a bad configuration value naming the variable', async () => {
    const p = run({ PORT: 'abc' });
    expect(await p.exited).to.equal(2);
    expect(p.output()).to.include('PORT must be a whole number');
  });

  it('serves, then drains in-flight requests and exits 0 on SIGTERM', async () => {
    const p = run({ HOST: '127.0.0.1', PORT: '0' });
    // serving: the app is loaded (a SIGTERM before "svc ready" is the reliability suite's sigterm-during-start)
    await waitFor(() => /svc ready/.test(p.output()), 'ready');
    const url = /"url":"([^"]+)"/.exec(p.output())![1];
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    // a request whose body is still arriving when the signal comes completes
    const body = '{"x": 1}';
    const req = http.request(`${url}/api/v1/tools/version`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 3));
    await new Promise((r) => setTimeout(r, 100));
    p.child.kill('SIGTERM');
    await waitFor(() => /draining/.test(p.output()), 'draining');
    req.end(body.slice(3));
    const res = await response;
    expect(res.status).to.equal(400); // the server read and judged the whole body: x is not a version parameter
    expect(JSON.parse(res.text).error.details[0].field).to.equal('x');
    expect(await p.exited).to.equal(0);
    expect(p.output()).to.include('svc stopped');
  });
});
