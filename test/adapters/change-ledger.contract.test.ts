import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileChangeLedger } from '../../infrastructure/ledger/file-change-ledger.js';
import { RedisChangeLedger } from '../../infrastructure/redis/redis-change-ledger.js';
import { changeLedgerContract } from '../contract/change-ledger-contract.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { useRedis } from '../support/redis-fixture.js';

changeLedgerContract('file', async (clock) => {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-ledger-'));
  const dir = path.join(root, 'ledger');
  const opened: FileChangeLedger[] = [];
  const make = () => {
    const l = new FileChangeLedger({ dir, clock });
    opened.push(l);
    return l;
  };
  return {
    ledger: make(),
    reopen: make,
    cleanup: async () => {
      await Promise.all(opened.map((l) => l.close()));
      await rm(root, { recursive: true, force: true });
    },
  };
});

changeLedgerContract('fake', async (clock) => {
  const ledger = new FakeChangeLedger(clock);
  return { ledger, reopen: () => ledger, cleanup: async () => undefined };
});

describe('RedisChangeLedger on a real redis-server', function () {
  this.timeout(30000);
  const redis = useRedis('svc-ledger:');
  changeLedgerContract('redis', async (clock) => ({
    ledger: new RedisChangeLedger(redis.conn, { clock }),
    reopen: () => new RedisChangeLedger(redis.conn, { clock }),
    cleanup: async () => void (await redis.conn.client.flushdb()),
  }));
});
