import { expect } from 'chai';
import { LedgerRetention, RETENTION_INTERVAL_MS } from '../../application/ledger/ledger-retention.js';
import { viewFor } from '../../application/ledger/change-view.js';
import { ListChanges } from '../../application/ledger/list-changes.js';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { ForbiddenError } from '../../domain/errors.js';
import { canonicalJson } from '../../domain/ledger/canonical-json.js';
import { scrubRecord } from '../../domain/ledger/ledger-scrub.js';
import { redactObject } from '../../domain/ledger/object-state.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

const caller = (role: 'viewer' | 'operator' | 'admin' | undefined): Caller => ({
  id: 'tokens-file:svc:u',
  username: 'u',
  groups: [],
  roles: role ? [...rolesUpTo(role)] : [],
  kind: 'tokens-file',
});

describe('ledger: canonical JSON, views, retention', () => {
  it('canonical JSON sorts keys at every depth, drops undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: 'é"' }], c: null } })).to.equal('{"a":{"c":null,"d":[3,{"x":"é\\"","z":1}]},"b":1}');
    expect(canonicalJson({ x: 1, y: 2 })).to.equal(canonicalJson({ y: 2, x: 1 }));
    expect(() => canonicalJson(undefined)).to.throw(TypeError);
  });

  it('scrubRecord: credentials in the request, rationale and messages, and svc’s own secrets in any field, become ***; an inverse holding one is dropped', () => {
    const known = 'svc-model-key-5b1f0c9e';
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${'a'.repeat(20)}.${'b'.repeat(20)}`;
    const record = aChangeRecord({
      request: `curl -H "Authorization: Bearer tok-9f8e7d6c5b" failed; DB_PASSWORD=hunter2-x9; id ${jwt}; key ${known}`,
      rationale: `the key ${known} is fine, api_key: zz-77-qq`,
      outcome: { status: 'refused', reason: 'Invalid', message: `token=${known}-tail rejected` },
      dryRun: { accepted: false, message: `password=abc123!`, diff: [] },
      before: { spec: { replicas: 1 }, annotations: { note: `uses ${known}` }, resourceVersion: '100' },
      inverse: { method: 'patch', patchType: 'merge', body: { metadata: { annotations: { note: `uses ${known}` } } } },
    });
    const clean = scrubRecord(record, [known]);
    const text = JSON.stringify(clean);
    for (const leaked of [known, 'tok-9f8e7d6c5b', 'hunter2-x9', jwt, 'zz-77-qq', 'abc123!']) expect(text).to.not.contain(leaked);
    expect(clean.request).to.equal('curl -H "Authorization: Bearer ***" failed; DB_PASSWORD=***; id ***; key ***');
    expect(clean.before!.annotations).to.deep.equal({ note: 'uses ***' });
    expect(clean.inverse).to.equal(null);
    // nothing to scrub: the same record, inverse kept
    const plain = aChangeRecord();
    expect(scrubRecord(plain, [known])).to.deep.equal(plain);
  });

  it('a JSON Patch keeps no Secret value and no last-applied annotation either', () => {
    const ops = [
      { op: 'replace', path: '/data/password', value: 'c2VjcmV0LXZhbHVl' },
      { op: 'add', path: '/stringData', value: { token: 'plain-secret' } },
      { op: 'add', path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration', value: '{"data":{"password":"x"}}' },
      { op: 'replace', path: '/metadata/labels/tier', value: 'front' },
      { op: 'replace', path: '/metadata/resourceVersion', value: '12' },
    ];
    expect(redactObject('Secret', ops)).to.deep.equal([
      { op: 'replace', path: '/data/password', value: '***' },
      { op: 'add', path: '/stringData', value: { token: '***' } },
      { op: 'add', path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration', value: '***' },
      ops[3],
      ops[4],
    ]);
    // data of a ConfigMap is no secret
    expect(redactObject('ConfigMap', [{ op: 'replace', path: '/data/x', value: 'y' }])).to.deep.equal([{ op: 'replace', path: '/data/x', value: 'y' }]);
  });

  it('a viewer sees who changed what and where, never the body, the before state, diff values or the inverse', async () => {
    const ledger = new FakeChangeLedger(new FakeClock());
    const entry = await ledger.append(aChangeRecord());
    const seen = viewFor(entry, caller('viewer')) as unknown as Record<string, unknown>;
    expect(seen).to.not.have.any.keys('before', 'inverse');
    expect(seen).to.include({ redacted: true, id: entry.id, tool: 'operate' });
    expect(seen.change).to.deep.equal({ method: 'patch', patchType: 'merge' });
    expect(seen.dryRun).to.deep.equal({ accepted: true, diff: [{ path: 'spec.replicas' }] });
    expect(JSON.stringify(seen)).to.not.include('"replicas":1');
    expect(viewFor(entry, caller('operator'))).to.deep.equal(entry);
    expect(viewFor(entry, caller('admin'))).to.deep.equal(entry);
  });

  it('a caller without a role may not read the ledger (403 FORBIDDEN naming viewer)', async () => {
    const err = await rejection(new ListChanges(new FakeChangeLedger(new FakeClock())).execute({}, caller(undefined)));
    expect(err).to.be.instanceOf(ForbiddenError);
    expect(err.message).to.include('viewer');
  });

  it('retention prunes at start and every hour, entries older than the days kept', async () => {
    const clock = new FakeClock();
    const ledger = new FakeChangeLedger(clock);
    await ledger.append(aChangeRecord());
    clock.advance(86_400_000 + 1_800_000);
    await ledger.append(aChangeRecord());
    clock.advance(86_400_000 - 1_800_000);
    // now: the first is two days old, the second 23.5 hours
    const retention = new LedgerRetention(ledger, 1, clock, new CapturingLogger());
    retention.start();
    await new Promise((r) => setImmediate(r));
    expect(ledger.texts).to.have.length(1);
    expect(clock.pendingTimers).to.equal(1);
    clock.advance(RETENTION_INTERVAL_MS);
    await new Promise((r) => setImmediate(r));
    expect(ledger.texts).to.have.length(0);
    await retention.stop();
    expect(clock.pendingTimers).to.equal(0);
  });
});
