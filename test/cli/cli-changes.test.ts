import { expect } from 'chai';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { runCli } from '../support/run-cli.js';

describe('svc changes list|show|verify', function () {
  this.timeout(60_000);
  let server: AccessServer;
  let env: Record<string, string>;
  const ledger = new FakeChangeLedger(new FakeClock());

  before(async () => {
    for (const ns of ['shop', 'blog', 'shop'])
      await ledger.append(aChangeRecord({ target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' } }));
    server = await startAccessServer({ overrides: { ledger } });
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });
  after(() => server.stop());

  it('list prints a table newest first, filtered, with the cursor of the next page', async () => {
    const run = await runCli(['changes', 'list', '--namespace', 'shop', '--limit', '1'], env);
    expect(run.code, run.stderr).to.equal(0);
    const [header, row, more] = run.stdout.trim().split('\n');
    expect(header).to.match(/^ID\s+AT\s+CALLER\s+TOOL\s+TYPE\s+METHOD\s+TARGET\s+OUTCOME$/);
    expect(row).to.match(/^chg_3_\S+\s+2026-01-01T00:00:00.000Z\s+alice\s+operate\s+change\s+patch\s+ConfigMap\/settings -n shop\s+applied$/);
    expect(more).to.match(/^\(more: --cursor \S+\)$/);
    const next = await runCli(['changes', 'list', '--namespace', 'shop', '--cursor', more.slice(16, -1), '-o', 'json'], env);
    expect(JSON.parse(next.stdout).changes.map((c: { seq: number }) => c.seq)).to.deep.equal([1]);
  });

  it('show prints the whole entry; an unknown id exits 1 with NOT_FOUND', async () => {
    const id = (await ledger.list({}, { limit: 1 })).entries[0].id;
    const run = await runCli(['changes', 'show', id], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include(`id: ${id}`).and.include('inverse:');
    // read top down: who changed what and how it went first, the bodies and the chain's hashes last
    const keys = run.stdout
      .split('\n')
      .filter((l) => /^[a-zA-Z]+:/.test(l))
      .map((l) => l.split(':')[0]);
    expect(keys[0]).to.equal('id');
    expect(keys.indexOf('target')).to.be.below(keys.indexOf('change'));
    expect(keys.indexOf('outcome')).to.be.below(keys.indexOf('change'));
    expect(keys.slice(-1)[0]).to.equal('hash');
    const missing = await runCli(['changes', 'show', 'chg_77_00000000'], env);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('NOT_FOUND');
  });

  it('verify exits 0 on an unbroken chain and 3 once an entry is edited', async () => {
    const good = await runCli(['changes', 'verify'], env);
    expect(good.code, good.stderr).to.equal(0);
    expect(good.stdout).to.include('ok: 3 entries');
    const saved = ledger.texts[0];
    ledger.texts[0] = saved.replace('"alice"', '"mallory"');
    try {
      const bad = await runCli(['changes', 'verify'], env);
      expect(bad.code).to.equal(3);
      expect(bad.stdout).to.match(/BROKEN .* first broken entry chg_1_/);
    } finally {
      ledger.texts[0] = saved;
    }
  });

  it('checks the flags with the server’s own parsing before sending: a bad value is a usage error (exit 2) naming the flag', async () => {
    for (const [flag, value] of [
      ['--limit', 'many'],
      ['--limit', '501'],
      ['--outcome', 'maybe'],
      ['--since', 'yesterday'],
      ['--cursor', 'not-a-cursor'],
    ]) {
      const run = await runCli(['changes', 'list', flag, value], env);
      expect(run.code, `${flag} ${value}: ${run.stderr}`).to.equal(2);
      expect(run.stderr).to.include(`Invalid ${flag}`);
    }
  });

  it('--session filters on the session id, as sessionId does over REST', async () => {
    const session = `opr_${'b'.repeat(32)}`;
    const { id } = await ledger.append(aChangeRecord({ sessionId: session }));
    try {
      const run = await runCli(['changes', 'list', '--session', session, '-o', 'json'], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(JSON.parse(run.stdout).changes.map((c: { id: string }) => c.id)).to.deep.equal([id]);
    } finally {
      ledger.texts.pop();
    }
  });
});

describe('svc changes revert --preview | --plan-digest: the undo through the write guard (issue 30 item 11)', function () {
  this.timeout(60_000);
  let server: AccessServer;
  let env: Record<string, string>;
  let cluster: FakeCluster;
  let id: string;

  before(async () => {
    const ledger = new FakeChangeLedger(new FakeClock());
    id = (await ledger.append(aChangeRecord())).id;
    cluster = new FakeCluster();
    cluster.put({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, resourceVersion: '101' },
      spec: { replicas: 3 },
    });
    server = await startAccessServer({ overrides: { ledger, cluster } });
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });
  after(() => server.stop());

  it('--preview prints the undo, its risk and diff and the planDigest, writing nothing; a wrong digest is refused and writes nothing; the previewed one reverts', async () => {
    const shown = await runCli(['changes', 'revert', id, '--preview'], env);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout)
      .to.include(`revert of ${id}: patch Deployment shop/web (nothing written)`)
      // the undo scales 3 back to 1: fewer replicas, an availability change
      .and.include('risk: medium')
      .and.include('spec.replicas: 3 -> 1');
    const digest = /planDigest: (sha256:[0-9a-f]{64})/.exec(shown.stdout)![1];
    expect(cluster.writes).to.deep.equal([]);
    const usage = await runCli(['changes', 'revert', id, '--plan-digest', 'abc'], env);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include('Invalid --plan-digest');
    const stale = await runCli(['changes', 'revert', id, '--plan-digest', `sha256:${'0'.repeat(64)}`], env);
    expect(stale.code).to.not.equal(0);
    expect(stale.stderr).to.include('CONFLICT');
    expect(cluster.writes).to.deep.equal([]);
    const done = await runCli(['changes', 'revert', id, '--plan-digest', digest], env);
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stdout).to.include(`reverted ${id}`);
    expect(cluster.writes.map((w) => w.method)).to.deep.equal(['patch']);
  });
});
