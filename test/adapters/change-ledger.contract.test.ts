import { readFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ChainAnchor } from '../../domain/ledger/hash-chain.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { HEAD_FILE } from '../../infrastructure/ledger/ledger-head-file.js';
import { RedisChangeLedger } from '../../infrastructure/ledger/redis-change-ledger.js';
import type { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { changeLedgerContract } from '../contract/change-ledger-contract.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { useRedis } from '../support/redis-fixture.js';
import { expect } from 'chai';
import { ConflictError } from '../../domain/errors.js';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord, anIntentRecord } from '../support/ledger-records.js';

changeLedgerContract('file', async (clock, key) => {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-ledger-'));
  const dir = path.join(root, 'ledger');
  const file = path.join(dir, LEDGER_FILE);
  const opened: FileChangeLedger[] = [];
  const make = () => {
    const l = new FileChangeLedger({ dir, clock, key });
    opened.push(l);
    return l;
  };
  const text = async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return {
    ledger: make(),
    reopen: make,
    cleanup: async () => {
      await Promise.all(opened.map((l) => l.close()));
      await rm(root, { recursive: true, force: true });
    },
    store: {
      texts: async () => (await text()).filter((l) => !l.startsWith('{"anchor"')),
      replace: async (texts: string[], head?: ChainAnchor) => {
        const anchor = (await text()).filter((l) => l.startsWith('{"anchor"'));
        await writeFile(file, [...anchor, ...texts].map((l) => `${l}\n`).join(''));
        if (head) await writeFile(path.join(dir, HEAD_FILE), JSON.stringify(head));
      },
      // the last line cut off the file, as `head -n -1` would
      cutNewest: async () => {
        const all = await readFile(file, 'utf8');
        await truncate(file, Buffer.byteLength(all.slice(0, all.lastIndexOf('\n', all.length - 2) + 1)));
      },
    },
  };
});

changeLedgerContract('fake', async (clock, key) => {
  const ledger = new FakeChangeLedger(clock, key);
  return {
    ledger,
    reopen: () => ledger,
    cleanup: async () => undefined,
    store: {
      texts: async () => [...ledger.texts],
      replace: async (texts: string[], head?: ChainAnchor) => {
        ledger.texts.splice(0, ledger.texts.length, ...texts);
        if (head) ledger.head = head;
      },
      cutNewest: async () => void ledger.texts.pop(),
    },
  };
});

function redisStore(conn: RedisConnection) {
  const stream = conn.key('ledger');
  return {
    texts: async () => (await conn.client.xrange(stream, '-', '+')).map(([, f]) => f[1]),
    replace: async (texts: string[], head?: ChainAnchor) => {
      const p = conn.client.multi().del(stream);
      for (const t of texts) p.xadd(stream, `${(JSON.parse(t) as { seq: number }).seq}-1`, 'e', t);
      if (head) p.hset(conn.key('ledger', 'head'), 'seq', String(head.seq), 'hash', head.hash);
      await p.exec();
    },
    // XDEL of the last stream item
    cutNewest: async () => {
      const [[id]] = await conn.client.xrevrange(stream, '+', '-', 'COUNT', 1);
      await conn.client.xdel(stream, id);
    },
  };
}

describe('RedisChangeLedger on a real redis-server', function () {
  this.timeout(30000);
  const redis = useRedis('svc-ledger:');
  // a keyed ledger made inside a test shares the keys of the test's (empty) one: only one of them appends
  changeLedgerContract('redis', async (clock, key) => ({
    ledger: new RedisChangeLedger(redis.conn, { clock, key }),
    reopen: () => new RedisChangeLedger(redis.conn, { clock, key }),
    cleanup: async () => void (await redis.conn.client.flushdb()),
    store: redisStore(redis.conn),
  }));

  it('two replicas closing one intent at the same moment: one outcome is appended, the other replica is refused (ConflictError)', async () => {
    const clock = new FakeClock();
    const a = new RedisChangeLedger(redis.conn, { clock });
    const b = new RedisChangeLedger(redis.conn, { clock });
    try {
      const intent = await a.append(anIntentRecord());
      expect((await b.openIntents()).map((e) => e.id)).to.deep.equal([intent.id]);
      const settled = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).append(aChangeRecord({ intentId: intent.id, request: `replica ${i % 2}` }))),
      );
      expect(settled.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of settled) if (r.status === 'rejected') expect(r.reason).to.be.instanceOf(ConflictError);
      expect(await a.openIntents()).to.deep.equal([]);
      const { anchor, head, records } = await b.chain();
      expect(await verifyChain(records, anchor, { head })).to.deep.include({ ok: true, entries: 2 });
      expect(await redis.conn.client.hlen(redis.conn.key('ledger', 'open'))).to.equal(0);
    } finally {
      await redis.conn.client.flushdb();
    }
  });
});
