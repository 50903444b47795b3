import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { HEAD_FILE } from '../../infrastructure/ledger/ledger-head-file.js';
import { RedisChangeLedger } from '../../infrastructure/ledger/redis-change-ledger.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { connectRedis, requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { callJson, ReplicaProcesses } from '../support/replica-processes.js';
import { runSvc, waitFor } from '../support/svc-process.js';

const TOKEN = 'store-writer-token-0123456789abcd';
const KEY = 'store-writer-ledger-key-0123456789abcdef';
const PREFIX = 'svc-store-writer:';
type Json = Record<string, any>;

const integrity = async (url: string): Promise<Json> =>
  (await callJson(url, 'GET', '/api/v1/changes/integrity', { authorization: `Bearer ${TOKEN}` })).json.data as Json;

/**
 * The attacks of issue 42 against real svc processes: someone who can write
 * the ledger's store, but does not hold SVC_LEDGER_KEY, removes the two
 * newest entries and rewrites the head to the entry before them. After a
 * restart (file) and on every replica (Redis), the integrity check is not ok
 * and says the head is what failed.
 */
describe('a ledger store writer without SVC_LEDGER_KEY cuts the newest entries (real svc processes)', function () {
  this.timeout(90_000);
  const dirs: string[] = [];
  const procs: ReturnType<typeof runSvc>[] = [];
  after(() => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('file: with svc stopped, the newest two lines cut and head.json rewritten from the last kept entry; after a restart integrity is not ok, naming the head', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-store-writer-'));
    dirs.push(dir);
    const ledgerDir = path.join(dir, 'ledger');
    const seeded = new FileChangeLedger({ dir: ledgerDir, clock: new SystemClock(), key: KEY });
    const made: ChangeEntry[] = [];
    for (let i = 0; i < 4; i++) made.push(await seeded.append(aChangeRecord({ request: `change ${i}` })));
    await seeded.close();
    // svc is stopped: the attacker edits the files
    const file = path.join(ledgerDir, LEDGER_FILE);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    writeFileSync(
      file,
      lines
        .slice(0, 2)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const kept = JSON.parse(lines[1]) as ChangeEntry;
    writeFileSync(path.join(ledgerDir, HEAD_FILE), JSON.stringify({ seq: kept.seq, hash: kept.hash }));

    const p = runSvc({ HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: dir, SVC_AUTH_TOKEN: TOKEN, SVC_LEDGER_KEY: KEY });
    procs.push(p);
    await waitFor(() => /"url":"([^"]+)"/.test(p.output()), 'svc listening');
    const report = await integrity(/"url":"([^"]+)"/.exec(p.output())![1]);
    expect(report).to.deep.include({ ok: false, entries: 2, keyed: true, head: { seq: 2, hash: made[1].hash } });
    expect(report.problem).to.match(/head at position 2 .* carrying no seal .* entries after position 2 may have been removed/);
    expect(report).to.not.have.property('warning');
    expect(p.output()).to.match(/the ledger head is not sealed with SVC_LEDGER_KEY/);
  });

  it('Redis: XDEL of the two newest items and HSET of the head to the entry before them; both replicas answer not ok, naming the head', async function () {
    requireRedisServer(this);
    const redis = await RedisServer.start();
    const replicas = new ReplicaProcesses({ SVC_AUTH_TOKEN: TOKEN, REDIS_URL: redis.url, SVC_REDIS_PREFIX: PREFIX, SVC_LEDGER_KEY: KEY });
    const conn = await connectRedis(redis.url, PREFIX);
    try {
      const seeded = new RedisChangeLedger(conn, { clock: new SystemClock(), key: KEY });
      const made: ChangeEntry[] = [];
      for (let i = 0; i < 4; i++) made.push(await seeded.append(aChangeRecord({ request: `change ${i}` })));
      const [a, b] = [await replicas.start(), await replicas.start()];
      expect(await integrity(a.url)).to.deep.include({ ok: true, entries: 4, keyed: true });
      // the attack, with the seq and hash of the entry before them as the stream shows them
      await conn.client.xdel(conn.key('ledger'), '4-1', '3-1');
      await conn.client.hset(conn.key('ledger', 'head'), 'seq', '2', 'hash', made[1].hash);
      for (const replica of [a, b]) {
        const report = await integrity(replica.url);
        expect(report).to.deep.include({ ok: false, entries: 2, keyed: true, head: { seq: 2, hash: made[1].hash } });
        expect(report.problem).to.match(/head svc keeps is at position 2, carrying a seal that SVC_LEDGER_KEY does not make/);
      }
    } finally {
      replicas.stop();
      await conn.close();
      await redis.stop();
    }
  });
});
