import { expect } from 'chai';
import request from 'supertest';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { UNKEYED_WARNING } from '../../application/ledger/verify-ledger.js';

const KEY = 'changes-test-ledger-key-0123456789abcdef';

async function seeded(n: number) {
  const clock = new FakeClock();
  const ledger = new FakeChangeLedger(clock);
  for (let i = 0; i < n; i++) {
    await ledger.append(aChangeRecord({ target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: i % 2 ? 'shop' : 'blog', name: `cm${i}` } }));
    clock.advance(60_000);
  }
  return { ledger, app: buildTestApp({}, { ledger }).app };
}

describe('GET /api/v1/changes', () => {
  it('lists newest first in the envelope, filters, and pages with an opaque cursor to the end', async () => {
    const { app } = await seeded(7);
    const first = await request(app).get('/api/v1/changes').query({ namespace: 'shop', limit: 2 }).set(auth).expect(200);
    expect(first.body.success).to.equal(true);
    expect(first.body.meta).to.have.keys('timestamp', 'requestId', 'version');
    expect(first.body.data.changes.map((c: { seq: number }) => c.seq)).to.deep.equal([6, 4]);
    expect(first.body.data.nextCursor).to.be.a('string');
    const second = await request(app).get('/api/v1/changes').query({ namespace: 'shop', limit: 2, cursor: first.body.data.nextCursor }).set(auth).expect(200);
    expect(second.body.data.changes.map((c: { seq: number }) => c.seq)).to.deep.equal([2]);
    expect(second.body.data).not.to.have.property('nextCursor');
    const all = await request(app).get('/api/v1/changes').set(auth).expect(200);
    expect(all.body.data.changes).to.have.length(7);
    expect(all.body.data.changes[0]).to.include.keys('id', 'at', 'caller', 'before', 'change', 'inverse', 'hash', 'prevHash');
  });

  it('refuses bad input with 400 VALIDATION_ERROR before reading', async () => {
    const { app } = await seeded(1);
    for (const query of [
      { limit: 0 },
      { limit: 501 },
      { outcome: 'maybe' },
      { since: 'yesterday' },
      { cursor: 'not-a-cursor' },
      { since: '2026-02-01', until: '2026-01-01' },
    ]) {
      const res = await request(app).get('/api/v1/changes').query(query).set(auth);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
  });

  it('needs the bearer token', async () => {
    const { app } = await seeded(1);
    expect((await request(app).get('/api/v1/changes')).status).to.equal(401);
  });

  it('GET /api/v1/changes/{id} answers the entry, 404 NOT_FOUND for an unknown id', async () => {
    const { app, ledger } = await seeded(2);
    const e = (await ledger.list({}, { limit: 1 })).entries[0];
    const res = await request(app).get(`/api/v1/changes/${e.id}`).set(auth).expect(200);
    expect(res.body.data).to.deep.equal(e);
    const missing = await request(app).get('/api/v1/changes/chg_99_00000000').set(auth).expect(404);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
  });

  it('GET /api/v1/changes/integrity walks the chain: ok, then the first broken entry once one is edited', async () => {
    const { app, ledger } = await seeded(4);
    const last = JSON.parse(ledger.texts[3]);
    // without SVC_LEDGER_KEY the answer says plainly what the check cannot find
    expect((await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data).to.deep.equal({
      ok: true,
      entries: 4,
      head: { seq: 4, hash: last.hash },
      warning: UNKEYED_WARNING,
    });
    expect(UNKEYED_WARNING).to.match(/SVC_LEDGER_KEY is not set: whoever can write the ledger store .* can remove the newest entries and rewrite the head/);
    const third = JSON.parse(ledger.texts[2]);
    ledger.texts[2] = JSON.stringify({ ...third, caller: { username: 'nobody', roles: [] } });
    const res = await request(app).get('/api/v1/changes/integrity').set(auth).expect(200);
    expect(res.body.data).to.deep.include({ ok: false, entries: 4, firstBrokenId: third.id });
  });

  it('GET /api/v1/changes/integrity: the newest entry removed from the store is ok false, against the head svc keeps', async () => {
    const { app, ledger } = await seeded(3);
    const last = JSON.parse(ledger.texts.pop()!);
    const res = await request(app).get('/api/v1/changes/integrity').set(auth).expect(200);
    expect(res.body.data).to.deep.include({ ok: false, entries: 2, head: { seq: 3, hash: last.hash } });
    expect(res.body.data.problem).to.match(/the newest 1 entries were removed/);
  });

  it('GET /api/v1/changes/integrity with SVC_LEDGER_KEY: no warning; a head rewritten without the key is ok false, naming the head', async () => {
    const clock = new FakeClock();
    const ledger = new FakeChangeLedger(clock, KEY);
    const made = [await ledger.append(aChangeRecord()), await ledger.append(aChangeRecord({ request: 'second' }))];
    const { app } = buildTestApp({ SVC_LEDGER_KEY: KEY }, { ledger });
    expect((await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data).to.deep.equal({
      ok: true,
      entries: 2,
      keyed: true,
      head: { seq: 2, hash: made[1].hash },
    });
    ledger.texts.pop();
    ledger.head = { seq: 1, hash: made[0].hash };
    const res = await request(app).get('/api/v1/changes/integrity').set(auth).expect(200);
    expect(res.body.data).to.deep.include({ ok: false, entries: 1, keyed: true });
    expect(res.body.data.problem).to.match(/the head svc keeps is at position 1, carrying no seal/);
  });

  it('is in the OpenAPI document', async () => {
    const { app } = await seeded(0);
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body;
    expect(doc.paths).to.include.keys('/api/v1/changes', '/api/v1/changes/integrity', '/api/v1/changes/{id}');
  });
});
