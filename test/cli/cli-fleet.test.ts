import { expect } from 'chai';
import { TEST_TOKEN } from '../support/access-server.js';
import { NEW_WEB_IMAGE, startFleet, startWaveFleet, WAVE_ORDER, webImageIn } from '../support/fleet-fixture.js';
import { svcOnFleet } from '../support/svc-on-fleet.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';
import { runCli } from '../support/run-cli.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';

describe('CLI: a fleet of clusters (--cluster)', function () {
  this.timeout(60_000);
  const svc = svcOnFleet(() => startFleet(['staging', 'production'], 'clusters:\n  staging:\n    labels: {env: staging}\n'));
  let env: Record<string, string>;
  before(() => {
    env = { SVC_URL: svc.server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });

  it('svc run without --cluster fails naming the choices; with it the call reaches that cluster only, and svc changes list --cluster filters', async () => {
    const refused = await runCli(['run', 'operate', '--intent', 'scale web in x to 3'], env);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('VALIDATION_ERROR').and.contain('staging, production');

    svc.chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) });
    const start = await runCli(['run', 'operate', '--intent', 'scale web in x to 3', '--cluster', 'production', '-o', 'json'], env);
    expect(start.code, start.stderr).to.equal(0);
    const sessionId = (JSON.parse(start.stdout) as { result: { sessionId: string } }).result.sessionId;
    const done = await runCli(['run', 'operate', '--sessionId', sessionId, '--executeChoice', '1', '--cluster', 'production', '-o', 'json'], env);
    expect(done.code, done.stderr).to.equal(0);
    expect(svc.fleet.clusters.production.objects.get(WEB)!.spec.replicas).to.equal(3);
    expect(svc.fleet.clusters.staging.requests).to.deep.equal([]);

    const listed = await runCli(['changes', 'list', '--cluster', 'production', '-o', 'json'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    const changes = (JSON.parse(listed.stdout) as { changes: { cluster: string }[] }).changes;
    expect(changes.length).to.be.greaterThan(0);
    expect(changes.every((c) => c.cluster === 'production')).to.equal(true);
    const none = await runCli(['changes', 'list', '--cluster', 'staging', '-o', 'json'], env);
    expect((JSON.parse(none.stdout) as { changes: unknown[] }).changes).to.deep.equal([]);
  });
});

describe('CLI: a rollout across three clusters in waves, and a revert that goes to its entry’s cluster', function () {
  this.timeout(90_000);
  const svc = svcOnFleet(() => startWaveFleet());
  let env: Record<string, string>;
  before(() => {
    env = { SVC_URL: svc.server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });

  const json = <T>(r: { code: number | null; stdout: string; stderr: string }): T => {
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as T;
  };

  it('--clusterSelector plans in each cluster, one --planDigest runs the waves and stops at the degraded second; svc changes revert undoes staging’s change in staging only', async () => {
    const plan = { content: planJson([NEW_WEB_IMAGE]) };
    svc.chat.script({ content: 'ok' }, plan, { content: 'ok' }, plan, { content: 'ok' }, plan);
    type Rollout = { result: { sessionId: string; planDigest: string; status: string; rollout: { stoppedAt?: object; waves: { status: string }[] } } };
    const started = json<Rollout>(
      await runCli(
        ['run', 'operate', '--intent', 'run web in x on nginx:1.28', '--clusterSelector', '{"team":"shop"}', '--waveOrder', WAVE_ORDER, '-o', 'json'],
        env,
      ),
    ).result;
    expect(started.status).to.equal('awaiting_approval');
    const ran = json<Rollout>(
      await runCli(['run', 'operate', '--sessionId', started.sessionId, '--executeChoice', '1', '--planDigest', started.planDigest, '-o', 'json'], env),
    ).result;
    expect(ran.rollout.stoppedAt).to.deep.include({ wave: 2, cluster: 'canary' });
    expect(ran.rollout.waves.map((w) => w.status)).to.deep.equal(['executed', 'degraded', 'not-run']);
    expect(webImageIn(svc.fleet, 'staging')).to.equal('nginx:1.28');
    expect(webImageIn(svc.fleet, 'canary')).to.equal('nginx:1.27');
    expect(svc.fleet.writes('production')).to.deep.equal([]);

    type Changes = { changes: { id: string; cluster: string; type: string; outcome: string }[] };
    const canary = json<Changes>(await runCli(['changes', 'list', '--cluster', 'canary', '-o', 'json'], env)).changes;
    expect(canary.map((c) => c.type)).to.include('revert');
    const staging = json<Changes>(await runCli(['changes', 'list', '--cluster', 'staging', '--type', 'change', '-o', 'json'], env)).changes;
    expect(staging).to.have.length(1);
    expect(staging[0].cluster).to.equal('staging');

    const canaryWrites = svc.fleet.writes('canary').length;
    const reverted = await runCli(['changes', 'revert', staging[0].id, '-o', 'json'], env);
    expect(reverted.code, reverted.stderr).to.equal(0);
    expect(webImageIn(svc.fleet, 'staging')).to.equal('nginx:1.27');
    expect(svc.fleet.writes('canary')).to.have.length(canaryWrites);
    expect(svc.fleet.writes('production')).to.deep.equal([]);
    const after = json<Changes>(await runCli(['changes', 'list', '--cluster', 'staging', '--type', 'revert', '-o', 'json'], env)).changes;
    expect(after).to.have.length(1);
  });
});
