import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { FileSessionStore } from '../../infrastructure/sessions/file-session-store.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { figures, record } from './reliability-kit.js';

const WRITER = path.join(__dirname, 'durability-writer.js');

/** Runs the writer until it has acknowledged `acks` writes, then SIGKILLs it mid-stream; resolves the acknowledged lines. */
async function writeThenKill(mode: string, dir: string, acks: number): Promise<string[]> {
  const child = spawn(process.execPath, [WRITER, mode, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`writer made ${out.split('\n').length - 1} acks in 30 s: ${err}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length - 1 >= acks) {
        child.kill('SIGKILL'); // while the next write is under way
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`writer exited early: ${err}`)));
  });
  expect(await exited).to.equal('SIGKILL');
  figures.faultsInjected++;
  // a line cut short by the kill was never acknowledged
  return out.split('\n').filter((l) => /^ack \S+( \S+)?$/.test(l) && out.includes(`${l}\n`));
}

describe('reliability: kill -9 during writes loses nothing acknowledged', function () {
  this.timeout(90_000);
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'svc-kill9-'));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('the embedded vector store: every pattern whose create answered 200 is there after the kill (three rounds on one directory)', async () => {
    const dir = fresh();
    const acked: string[] = [];
    for (let round = 0; round < 3; round++) acked.push(...(await writeThenKill('orgdata', dir, 40 + round * 7)).map((l) => l.split(' ')[1]));
    const { app } = buildTestApp({ SVC_DATA_DIR: dir });
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await request(app)
        .post('/api/v1/tools/manageOrgData')
        .set(auth)
        .send({ dataType: 'pattern', operation: 'list', limit: 100, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).to.equal(200);
      for (const item of res.body.data.result.items) seen.add(item.id);
      cursor = res.body.data.result.next;
    } while (cursor);
    const lost = acked.filter((id) => !seen.has(id));
    record('kill -9: embedded vector store', `${acked.length} acknowledged, ${seen.size} present, ${lost.length} lost`);
    expect(lost).to.deep.equal([]);
    // and the store still takes writes
    const res = await request(app)
      .post('/api/v1/tools/manageOrgData')
      .set(auth)
      .send({ dataType: 'pattern', operation: 'search', query: 'web application', limit: 3 });
    expect(res.status).to.equal(200);
  });

  it('the file session store: every created session reads back after the kill', async () => {
    const dir = fresh();
    const acked = await writeThenKill('sessions', dir, 150);
    const store = new FileSessionStore({ dir, ttlMs: 3_600_000, clock: new SystemClock() });
    let lost = 0;
    for (const line of acked) {
      const [, kind, id] = line.split(' ');
      const session = await store.get(kind as 'operation' | 'remediation', id);
      if (!session) lost++;
      else expect(session.state).to.have.property('step');
    }
    record('kill -9: file session store', `${acked.length} acknowledged, ${lost} lost`);
    expect(lost).to.equal(0);
  });
});
