import { expect } from 'chai';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { startFleet, type FleetFixture } from '../support/fleet-fixture.js';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';
import { runCli } from '../support/run-cli.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';

describe('CLI: a fleet of clusters (--cluster)', function () {
  this.timeout(60_000);
  let chat: ModelStandIn;
  let fleet: FleetFixture;
  let server: AccessServer;
  let env: Record<string, string>;

  before(async () => {
    chat = await startModelStandIn('openai');
    fleet = await startFleet(['staging', 'production'], 'clusters:\n  staging:\n    labels: {env: staging}\n');
    server = await startAccessServer({ env: { ...chat.env(), ...fleet.env } });
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });
  after(async () => {
    await server.stop();
    await fleet.close();
    await chat.close();
  });

  it('svc run without --cluster fails naming the choices; with it the call reaches that cluster only, and svc changes list --cluster filters', async () => {
    const refused = await runCli(['run', 'operate', '--intent', 'scale web in x to 3'], env);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('VALIDATION_ERROR').and.contain('staging, production');

    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) });
    const start = await runCli(['run', 'operate', '--intent', 'scale web in x to 3', '--cluster', 'production', '-o', 'json'], env);
    expect(start.code, start.stderr).to.equal(0);
    const sessionId = (JSON.parse(start.stdout) as { result: { sessionId: string } }).result.sessionId;
    const done = await runCli(['run', 'operate', '--sessionId', sessionId, '--executeChoice', '1', '--cluster', 'production', '-o', 'json'], env);
    expect(done.code, done.stderr).to.equal(0);
    expect(fleet.clusters.production.objects.get(WEB)!.spec.replicas).to.equal(3);
    expect(fleet.clusters.staging.requests).to.deep.equal([]);

    const listed = await runCli(['changes', 'list', '--cluster', 'production', '-o', 'json'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    const changes = (JSON.parse(listed.stdout) as { changes: { cluster: string }[] }).changes;
    expect(changes.length).to.be.greaterThan(0);
    expect(changes.every((c) => c.cluster === 'production')).to.equal(true);
    const none = await runCli(['changes', 'list', '--cluster', 'staging', '-o', 'json'], env);
    expect((JSON.parse(none.stdout) as { changes: unknown[] }).changes).to.deep.equal([]);
  });
});
