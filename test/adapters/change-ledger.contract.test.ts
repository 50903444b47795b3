import { readFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ChainAnchor } from '../../domain/ledger/hash-chain.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { HEAD_FILE } from '../../infrastructure/ledger/ledger-head-file.js';
import { RedisChangeLedger } from '../../infrastructure/ledger/redis-change-ledger.js';
import type { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { changeLedgerContract, LEDGER_TEST_KEY, type ChangeLedgerFactory } from '../contract/change-ledger-contract.js';
import { ledgerSealContract } from '../contract/ledger-seal-contract.js';
import type { LedgerKeys } from '../../domain/ledger/ledger-seal.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { useRedis } from '../support/redis-fixture.js';
import { expect } from 'chai';
import { ConflictError, DependencyError } from '../../domain/errors.js';
import { rejection } from '../support/rejection.js';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord, anIntentRecord } from '../support/ledger-records.js';

/** Sets the given fields of a JSON object, removing those given as undefined. */
function merged<T extends object>(base: T, fields: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base, ...fields };
  for (const [k, v] of Object.entries(fields)) if (v === undefined) delete out[k];
  return out as T;
}

const fileLedger: ChangeLedgerFactory = async (clock, key) => {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-ledger-'));
  const dir = path.join(root, 'ledger');
  const file = path.join(dir, LEDGER_FILE);
  const headFile = path.join(dir, HEAD_FILE);
  const opened: FileChangeLedger[] = [];
  const make = (keys: LedgerKeys = { key }) => {
    const l = new FileChangeLedger({ dir, clock, ...keys });
    opened.push(l);
    return l;
  };
  const text = async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const isAnchor = (l: string) => l.startsWith('{"anchor"');
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
      cutOldest: async () => {
        const ls = await text();
        ls.splice(
          ls.findIndex((l) => !isAnchor(l)),
          1,
        );
        await writeFile(file, ls.map((l) => `${l}\n`).join(''));
      },
      writeHead: async (fields) => {
        const head = JSON.parse(await readFile(headFile, 'utf8')) as Record<string, unknown>;
        await writeFile(headFile, JSON.stringify(merged(head, fields)));
      },
      writeAnchor: async (fields) => {
        const ls = await text();
        const anchor = isAnchor(ls[0]) ? (JSON.parse(ls.shift()!) as { anchor: Record<string, unknown> }).anchor : {};
        await writeFile(file, [JSON.stringify({ anchor: merged(anchor, fields) }), ...ls].map((l) => `${l}\n`).join(''));
      },
    },
  };
};

const fakeLedger: ChangeLedgerFactory = async (clock, key) => {
  const ledger = new FakeChangeLedger(clock, key);
  return {
    ledger,
    reopen: (keys) => ledger.rekey(keys ?? { key }),
    cleanup: async () => undefined,
    store: {
      texts: async () => [...ledger.texts],
      replace: async (texts: string[], head?: ChainAnchor) => {
        ledger.texts.splice(0, ledger.texts.length, ...texts);
        if (head) ledger.head = head;
      },
      cutNewest: async () => void ledger.texts.pop(),
      cutOldest: async () => void ledger.texts.shift(),
      writeHead: async (fields) => void (ledger.head = merged(ledger.head, fields)),
      writeAnchor: async (fields) => void (ledger.anchor = merged(ledger.anchor, fields)),
    },
  };
};

changeLedgerContract('file', fileLedger);
ledgerSealContract('file', fileLedger);
changeLedgerContract('fake', fakeLedger);
ledgerSealContract('fake', fakeLedger);

/** HSET of the fields given, HDEL of those given as undefined (a flaw is stored as JSON). */
async function setFields(conn: RedisConnection, key: string, fields: Record<string, unknown>): Promise<void> {
  for (const [k, v] of Object.entries(fields))
    if (v === undefined) await conn.client.hdel(key, k);
    else await conn.client.hset(key, k, typeof v === 'object' ? JSON.stringify(v) : String(v));
}

function redisStore(conn: RedisConnection) {
  const stream = conn.key('ledger');
  const headKey = conn.key('ledger', 'head');
  return {
    texts: async () => (await conn.client.xrange(stream, '-', '+')).map(([, f]) => f[1]),
    replace: async (texts: string[], head?: ChainAnchor) => {
      const p = conn.client.multi().del(stream);
      for (const t of texts) p.xadd(stream, `${(JSON.parse(t) as { seq: number }).seq}-1`, 'e', t);
      if (head) p.del(headKey);
      await p.exec();
      if (head) await setFields(conn, headKey, { ...head });
    },
    // XDEL of the last stream item
    cutNewest: async () => {
      const [[id]] = await conn.client.xrevrange(stream, '+', '-', 'COUNT', 1);
      await conn.client.xdel(stream, id);
    },
    cutOldest: async () => {
      const [[id]] = await conn.client.xrange(stream, '-', '+', 'COUNT', 1);
      await conn.client.xdel(stream, id);
    },
    writeHead: (fields: Record<string, unknown>) => setFields(conn, headKey, fields),
    writeAnchor: (fields: Record<string, unknown>) => setFields(conn, conn.key('ledger', 'anchor'), fields),
  };
}

describe('RedisChangeLedger on a real redis-server', function () {
  this.timeout(30000);
  const redis = useRedis('svc-ledger:');
  // a keyed ledger made inside a test shares the keys of the test's (empty) one: only one of them appends
  const redisLedger: ChangeLedgerFactory = async (clock, key) => ({
    ledger: new RedisChangeLedger(redis.conn, { clock, key }),
    reopen: (keys = { key }) => new RedisChangeLedger(redis.conn, { clock, ...keys }),
    cleanup: async () => void (await redis.conn.client.flushdb()),
    store: redisStore(redis.conn),
  });
  changeLedgerContract('redis', redisLedger);
  ledgerSealContract('redis', redisLedger);

  it('after XDEL of the newest items the stream refuses the next id: the append is refused before anything is written, the intent it closes stays open', async () => {
    const clock = new FakeClock();
    const a = new RedisChangeLedger(redis.conn, { clock, key: LEDGER_TEST_KEY });
    try {
      const intent = await a.append(anIntentRecord());
      await a.append(aChangeRecord());
      const second = await a.append(aChangeRecord({ request: 'third' }));
      const store = redisStore(redis.conn);
      await store.cutNewest();
      await store.writeHead({ seq: second.seq - 1, hash: second.prevHash });
      const b = new RedisChangeLedger(redis.conn, { clock, key: LEDGER_TEST_KEY });
      const err = await rejection(b.append(aChangeRecord({ intentId: intent.id })));
      expect(err).to.be.instanceOf(DependencyError);
      expect((err as Error).message).to.match(/cannot append at position 3: its stream already went past the head/);
      expect((await b.openIntents()).map((e) => e.id)).to.deep.equal([intent.id]);
      expect(await redis.conn.client.xlen(redis.conn.key('ledger'))).to.equal(2);
    } finally {
      await redis.conn.client.flushdb();
    }
  });

  it('one replica’s appends wait for each other instead of racing for the head; a replica that lost waits, then builds on the head as it is then', async () => {
    const clock = new FakeClock();
    const waits: number[] = [];
    let duringWait: (() => Promise<unknown>) | undefined;
    const pause = async (ms: number) => {
      waits.push(ms);
      await duringWait?.();
      duringWait = undefined;
    };
    const a = new RedisChangeLedger(redis.conn, { clock, pause });
    const b = new RedisChangeLedger(redis.conn, { clock });
    try {
      // twenty appends at once from one replica: none of them loses a race to another of its own
      const mine = await Promise.all(Array.from({ length: 20 }, (_, i) => a.append(aChangeRecord({ request: `a${i}` }))));
      expect(mine.map((e) => e.seq).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(waits).to.deep.equal([]);
      // another replica appends behind a's back; a loses once, and while it waits the other appends three more
      await b.append(aChangeRecord({ request: 'b0' }));
      duringWait = async () => {
        for (let i = 1; i <= 3; i++) await b.append(aChangeRecord({ request: `b${i}` }));
      };
      const late = await a.append(aChangeRecord({ request: 'a-late' }));
      // one wait (at most 1 ms after the first loss), and the next attempt is built on the head after b's three
      expect(waits).to.have.length(1);
      expect(waits[0]).to.be.within(0, 1);
      expect(late.seq).to.equal(25);
      const { anchor, head, records } = await b.chain();
      expect(await verifyChain(records, anchor, { head })).to.deep.include({ ok: true, entries: 25 });
    } finally {
      await redis.conn.client.flushdb();
    }
  });

  it('a flaw one replica found in the head is carried by another replica’s next append', async () => {
    const clock = new FakeClock();
    const a = new RedisChangeLedger(redis.conn, { clock, key: LEDGER_TEST_KEY });
    try {
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await a.append(aChangeRecord({ request: `r${i}` })));
      const store = redisStore(redis.conn);
      // the stream rewritten without the newest entry, and a head with no seal at the entry before it
      await store.replace((await store.texts()).slice(0, 2), { seq: 2, hash: made[1].hash });
      const b = new RedisChangeLedger(redis.conn, { clock, key: LEDGER_TEST_KEY });
      await b.append(aChangeRecord({ request: 'b finds it' }));
      // a still holds the head it wrote: the script answers the head as stored, flaw and all, and a carries it
      await a.append(aChangeRecord({ request: 'a carries it' }));
      const { anchor, head, records } = await b.chain();
      expect(head.flaw).to.include({ seq: 2, hash: made[1].hash, found: 'unsealed' });
      const report = await verifyChain(records, anchor, { head, key: LEDGER_TEST_KEY });
      expect(report).to.deep.include({ ok: false, entries: 4 });
      expect(report.problem).to.match(/svc found the head at position 2 .* carrying no seal/);
    } finally {
      await redis.conn.client.flushdb();
    }
  });

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
