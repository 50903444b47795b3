/**
 * Child process of the three-replica ledger test: one replica's own Redis
 * connection and RedisChangeLedger. argv: <redis url> <prefix> <appends>
 * <tag>. Prints `ready` once connected, waits for a line on stdin (so all
 * replicas start together), then appends, four at a time, printing
 * `ack <id> <tag>-<n>` for each acknowledged append, and `done`.
 */
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { RedisChangeLedger } from '../../infrastructure/ledger/redis-change-ledger.js';
import { aChangeRecord } from './ledger-records.js';
import { connectRedis } from './redis-fixture.js';

const [url, prefix, count, tag] = process.argv.slice(2);

async function main(): Promise<void> {
  const conn = await connectRedis(url, prefix);
  const ledger = new RedisChangeLedger(conn, { clock: new SystemClock() });
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < Number(count); n = next++) {
      const entry = await ledger.append(aChangeRecord({ tool: 'replica-writer', request: `${tag}-${n}` }));
      process.stdout.write(`ack ${entry.id} ${tag}-${n}\n`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  process.stdout.write('done\n');
  await conn.close();
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
