import { expect } from 'chai';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSvc, waitFor } from '../support/svc-process.js';
import { figures, LOAD_TOKEN, record } from './reliability-kit.js';

/** What became of one request: its status (and whether it asked to close the connection), or the socket error it got instead. */
type Fate = { status: number; close: boolean } | { error: string };

/**
 * A SIGTERM while svc is still starting, with requests held (issue 44): each
 * one is answered (served once the app is attached, or 503 with
 * `Connection: close`), never reset, and the process exits 0. Connections
 * that keep coming are answered too, or refused once the listener closed
 * (ECONNREFUSED: never accepted); a held one is never reset (ECONNRESET), and of
 * the stream arriving while it stops at most two, the kernel's race at close().
 */
describe('reliability: SIGTERM while requests are held during start', function () {
  this.timeout(60_000);

  it('answers every held request (GETs, POSTs with their body, POSTs whose body is still arriving), never resets one, and exits 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-start-term-'));
    const p = runSvc({
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_AUTH_TOKEN: LOAD_TOKEN,
      SVC_DATA_DIR: dataDir,
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_SHUTDOWN_GRACE_MS: '10000',
    });
    try {
      const listening = () => /"url":"([^"]+)"[^\n]*"msg":"svc listening"/.exec(p.output())?.[1];
      await waitFor(() => listening() !== undefined || p.child.exitCode !== null, 'svc listening');
      const url = listening()!;
      const auth = { authorization: `Bearer ${LOAD_TOKEN}` };
      const body = '{}  ';
      const fates: Promise<Fate>[] = [];
      const partial: http.ClientRequest[] = [];
      const send = (method: string, pathname: string, withBody: 'none' | 'whole' | 'partial') => {
        const req = http.request(`${url}${pathname}`, {
          method,
          agent: false,
          headers: { ...auth, ...(withBody === 'none' ? {} : { 'content-type': 'application/json', 'content-length': body.length }) },
        });
        fates.push(
          new Promise<Fate>((resolve) => {
            req.on('response', (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, close: res.headers.connection === 'close' }));
              res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
            });
            req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
          }),
        );
        if (withBody === 'whole') req.end(body);
        else if (withBody === 'partial') {
          req.write(body.slice(0, 1));
          partial.push(req);
        } else req.end();
      };
      for (let i = 0; i < 7; i++) send('GET', '/api/v1/tools', 'none');
      for (let i = 0; i < 6; i++) send('POST', '/api/v1/tools/version', 'whole');
      for (let i = 0; i < 7; i++) send('POST', '/api/v1/tools/version', 'partial');
      // the requests reach the server (held: the app is not attached yet), then the signal
      await new Promise((r) => setTimeout(r, 30));
      const readyBeforeSignal = /svc ready/.test(p.output());
      p.child.kill('SIGTERM');
      figures.faultsInjected++;
      // more connections while svc loads (its event loop blocked by a module, they queue in the kernel) and stops:
      // one every 3 ms until it exits; closing the listener with some still queued was the reset
      let exited = false;
      void p.exited.then(() => (exited = true));
      const stream = (async () => {
        for (let i = 0; i < 2000 && !exited; i++) {
          send('GET', '/api/v1/tools', 'none');
          await new Promise((r) => setTimeout(r, 3));
        }
      })();
      // the rest of each partial body, after the signal
      await new Promise((r) => setTimeout(r, 50));
      for (const req of partial) req.end(body.slice(1));
      await stream;
      const results = await Promise.all(fates);
      const code = await p.exited;
      const held = results.slice(0, 20);
      const later = results.slice(20);
      const reset = results.filter((r) => 'error' in r && r.error !== 'ECONNREFUSED');
      const refusedToConnect = later.filter((r) => 'error' in r && r.error === 'ECONNREFUSED').length;
      const statuses = results.flatMap((r) => ('status' in r ? [r.status] : []));
      figures.requestsServed += statuses.length;
      record(
        'SIGTERM during start',
        `20 held + ${later.length} arriving: ${statuses.length} answered (${[...new Set(statuses)].join(', ')}), ${refusedToConnect} refused to connect after the listener closed, ${reset.length} reset; signal ${readyBeforeSignal ? 'after' : 'before'} ready; exit ${code}`,
      );
      expect(readyBeforeSignal, 'the signal must arrive before "svc ready" for this test to mean anything').to.equal(false);
      // a held request (accepted before the signal) is never reset
      expect(
        held.filter((r) => 'error' in r),
        JSON.stringify(held),
      ).to.deep.equal([]);
      // one arriving as the listener closes can be completed by the kernel in the instant between the last accept and
      // close(), and Linux resets what is still in its accept queue then: at most a couple of a stream of hundreds on
      // a loaded machine (before the fix, about 170 of them were reset)
      expect(reset.length, JSON.stringify(reset)).to.be.at.most(2);
      // the held ones are all answered; one arriving later may find the listener closed (never accepted: safe to retry)
      expect(held.every((r) => 'status' in r)).to.equal(true);
      for (const r of results) {
        if (!('status' in r)) continue;
        // served (the app was attached first), or refused because svc is stopping, saying it closes the connection
        if (r.status === 503) expect(r.close).to.equal(true);
        else expect(r.status).to.equal(200);
      }
      expect(code).to.equal(0);
      expect(p.output()).to.include('svc stopped');
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
