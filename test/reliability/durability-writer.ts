/**
 * Child process of the kill -9 test: writes until killed and prints `ack <id>`
 * for every write the store acknowledged. argv: <orgdata|sessions|ledger> <data dir>.
 */
import 'reflect-metadata';
import request from 'supertest';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { FileSessionStore } from '../../infrastructure/sessions/file-session-store.js';
import { FileChangeLedger } from '../../infrastructure/ledger/file-change-ledger.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { patternDoc } from '../support/orgdata-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

const [mode, dir] = process.argv.slice(2);

async function main(): Promise<void> {
  if (mode === 'orgdata') {
    const { app } = buildTestApp({ SVC_DATA_DIR: dir, SVC_RATE_LIMIT_ENABLED: 'false' });
    for (let i = 0; ; i++) {
      const res = await request(app)
        .post('/api/v1/tools/manageOrgData')
        .set(auth)
        .send({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, description: `${patternDoc.description} #${i}` } });
      if (res.status !== 200) throw new Error(`create answered ${res.status}: ${res.text}`);
      process.stdout.write(`ack ${res.body.data.result.id}\n`);
    }
  }
  if (mode === 'ledger') {
    // entries of 3 MiB: a write that long spans many pages, and a kill between two of them cuts the line
    const ledger = new FileChangeLedger({ dir, clock: new SystemClock() });
    const body = { data: { blob: 'x'.repeat(3 * 1024 * 1024) } };
    for (let i = 0; ; i++) {
      const entry = await ledger.append(aChangeRecord({ request: `append ${i}`, change: { method: 'apply', patchType: 'apply', body } }));
      process.stdout.write(`ack ${entry.id}\n`);
    }
  }
  const store = new FileSessionStore({ dir, ttlMs: 3_600_000, clock: new SystemClock() });
  for (let i = 0; ; i++) {
    const kind = i % 2 ? 'operation' : 'remediation';
    const session = await store.create(kind, { step: i, padding: 'x'.repeat(2000) });
    process.stdout.write(`ack ${kind} ${session.id}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
