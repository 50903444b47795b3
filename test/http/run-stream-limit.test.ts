import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { RunRecord } from '../../domain/runs/run.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { buildTestApp, TEST_DATA_DIR } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKEN = { ana: 'ana-token-0123456789abcdef', ben: 'ben-token-0123456789abcdef' };
type Who = keyof typeof TOKEN;

/** A run still running on a replica whose lease is far ahead: its stream stays open. */
const running = (n: number, who: Who): RunRecord => ({
  runId: `run_${n.toString(16).padStart(32, 'a')}`,
  tool: 'operate',
  caller: { id: `tokens-file:svc:${who}`, username: who, kind: 'tokens-file' },
  status: 'running',
  createdAt: new Date().toISOString(),
  owner: 'replica-elsewhere',
  leaseUntil: Date.now() + 600_000,
});

describe('run event streams per caller (SVC_RUN_STREAMS_PER_CALLER): one caller cannot take every connection', function () {
  this.timeout(120_000);
  let server: RunningServer;
  const open: http.ClientRequest[] = [];

  /** Opens the run's event stream on its own connection: the status, and the body when it is not a stream. */
  const stream = (who: Who, runId: string) =>
    new Promise<{ status: number; body?: { error?: { code: string; message: string } } }>((resolve, reject) => {
      const req = http.get(`${server.url}/api/v1/runs/${runId}/events`, { agent: false, headers: { Authorization: `Bearer ${TOKEN[who]}` } }, (res) => {
        if (res.statusCode === 200) {
          open.push(req);
          return resolve({ status: 200 });
        }
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode!, body: JSON.parse(text) });
        });
      });
      req.on('error', reject);
    });

  before(async () => {
    const dir = mkdtempSync(path.join(TEST_DATA_DIR, 'streams-'));
    const tokens = path.join(dir, 'tokens');
    writeFileSync(tokens, `ana operator ${sha(TOKEN.ana)}\nben operator ${sha(TOKEN.ben)}\n`);
    const t = buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: tokens, SVC_RUNS_HEARTBEAT_MS: '60000', SVC_RATE_LIMIT_ENABLED: 'false' });
    const store = t.container.resolve(TOKENS.RunStore);
    await store.create(running(1, 'ana'));
    await store.create(running(2, 'ben'));
    server = await startServer(appParts(t.container));
  });
  after(async () => {
    for (const req of open) req.destroy();
    await server?.close();
  });

  it('1,100 streams from one caller: 20 open, the rest 429 RATE_LIMITED at once; another caller still streams and gets answers; a closed stream frees its slot', async () => {
    const statuses: number[] = [];
    let refusal: { code: string; message: string } | undefined;
    for (let batch = 0; batch < 1100 / 50; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => stream('ana', running(1, 'ana').runId)));
      for (const a of answers) {
        statuses.push(a.status);
        if (a.status === 429) refusal ??= a.body!.error;
      }
    }
    expect(statuses.filter((s) => s === 200)).to.have.length(20);
    expect(statuses.filter((s) => s === 429)).to.have.length(1080);
    expect(refusal!.code).to.equal('RATE_LIMITED');
    expect(refusal!.message).to.contain('At most 20 event streams').and.contain('SVC_RUN_STREAMS_PER_CALLER');

    // ben is another identity: his stream opens and his requests are answered while ana holds her 20
    expect((await stream('ben', running(2, 'ben').runId)).status).to.equal(200);
    const list = await fetch(`${server.url}/api/v1/runs`, { headers: { Authorization: `Bearer ${TOKEN.ben}` } });
    expect(list.status).to.equal(200);
    expect(((await list.json()) as { data: { runs: unknown[] } }).data.runs).to.have.length(1);

    // ana closes one stream: the server sees it go, and her next stream opens
    open.shift()!.destroy();
    let again = 429;
    for (let i = 0; i < 50 && again !== 200; i++) {
      await new Promise((r) => setTimeout(r, 40));
      again = (await stream('ana', running(1, 'ana').runId)).status;
    }
    expect(again).to.equal(200);
    expect((await stream('ana', running(1, 'ana').runId)).status).to.equal(429);
  });
});
