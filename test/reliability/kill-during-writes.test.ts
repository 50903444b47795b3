import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { FileSessionStore } from '../../infrastructure/sessions/file-session-store.js';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { aChangeRecord } from '../support/ledger-records.js';
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

/**
 * Starts the ledger writer, lets it acknowledge two appends, then watches the
 * file and SIGKILLs the writer the moment the file ends in a partial line (an
 * append under way). Resolves the acknowledged ids.
 */
async function killDuringAppend(dir: string): Promise<string[]> {
  const child = spawn(process.execPath, [WRITER, 'ledger', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ledger writer made no two acks in 30 s: ${err}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length - 1 >= 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const fd = openSync(path.join(dir, LEDGER_FILE), 'r');
  const last = Buffer.alloc(1);
  let seen = fstatSync(fd).size;
  // a busy loop on purpose: the kill must land while the write is in flight
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    const size = fstatSync(fd).size;
    if (size === seen) continue;
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 10) break;
    seen = size;
  }
  child.kill('SIGKILL');
  closeSync(fd);
  await exited;
  figures.faultsInjected++;
  return out
    .split('\n')
    .filter((l) => /^ack chg_\S+$/.test(l) && out.includes(`${l}\n`))
    .map((l) => l.slice(4));
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

  it('the change ledger: a line cut by kill -9 mid-append is reported, every acknowledged entry is there, and the chain goes on', async () => {
    let torn = 0;
    for (let round = 0; round < 6 && torn < 2; round++) {
      const dir = fresh();
      const acked = await killDuringAppend(dir);
      const ledger = new FileChangeLedger({ dir, clock: new SystemClock() });
      try {
        for (const id of acked) expect(await ledger.get(id), id).to.not.equal(undefined);
        const { anchor, records } = await ledger.chain();
        const report = await verifyChain(records, anchor);
        expect(report.entries).to.be.at.least(acked.length);
        if (!report.ok) {
          torn++;
          expect(report.problem).to.match(/^the last line .* is not a complete entry/);
        }
        const next = await ledger.append(aChangeRecord({ request: 'after the kill' }));
        const last = (await ledger.list({}, { limit: 2 })).entries[1];
        expect(next).to.include({ seq: last.seq + 1, prevHash: last.hash });
      } finally {
        await ledger.close();
      }
    }
    record('kill -9: change ledger', `${torn} appends cut short, each reported by the integrity walk, none acknowledged lost`);
    expect(torn, 'no kill landed during a write in 6 rounds').to.be.at.least(1);
  });
});
