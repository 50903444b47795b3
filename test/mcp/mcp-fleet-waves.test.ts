import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { TEST_TOKEN } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';
import { NEW_WEB_IMAGE, startWaveFleet, WAVE_ORDER, webImageIn } from '../support/fleet-fixture.js';
import { svcOnFleet } from '../support/svc-on-fleet.js';
import { planJson } from '../support/operate-fixtures.js';

type Called = { isError?: boolean; structuredContent?: unknown; content: unknown };
type Rollout = { sessionId: string; status: string; planDigest: string; rollout: { stoppedAt?: object; waves: { status: string }[] } };
const resultOf = (r: Called) => (r.structuredContent as { result: Rollout }).result;

describe('MCP: a rollout across three clusters in waves (operate with clusterSelector)', function () {
  this.timeout(60_000);
  const svc = svcOnFleet(() => startWaveFleet());
  let client: Client;
  before(async () => {
    client = await mcpClient(svc.server.url, TEST_TOKEN);
  });
  after(async () => {
    await client.close();
  });

  it('one approval executes wave by wave, stops at the degraded second wave and reverts it; the third cluster sees no write', async () => {
    const plan = { content: planJson([NEW_WEB_IMAGE]) };
    svc.chat.script({ content: 'ok' }, plan, { content: 'ok' }, plan, { content: 'ok' }, plan);
    const started = (await client.callTool({
      name: 'operate',
      arguments: { intent: 'run web in x on nginx:1.28', clusterSelector: { team: 'shop' }, waveOrder: WAVE_ORDER },
    })) as Called;
    expect(started.isError, JSON.stringify(started.content)).to.not.equal(true);
    const rollout = resultOf(started);
    expect(rollout.status).to.equal('awaiting_approval');
    for (const name of ['staging', 'canary', 'production']) expect(svc.fleet.writes(name), name).to.deep.equal([]);

    const wrong = (await client.callTool({
      name: 'operate',
      arguments: { sessionId: rollout.sessionId, executeChoice: 1, planDigest: `sha256:${'0'.repeat(64)}` },
    })) as Called;
    expect(wrong.isError).to.equal(true);
    expect(svc.fleet.writes('staging')).to.deep.equal([]);

    const ran = resultOf(
      (await client.callTool({ name: 'operate', arguments: { sessionId: rollout.sessionId, executeChoice: 1, planDigest: rollout.planDigest } })) as Called,
    );
    expect(ran.status).to.equal('execution_failed');
    expect(ran.rollout.stoppedAt).to.deep.include({ wave: 2, cluster: 'canary' });
    expect(ran.rollout.waves.map((w) => w.status)).to.deep.equal(['executed', 'degraded', 'not-run']);
    expect(webImageIn(svc.fleet, 'staging')).to.equal('nginx:1.28');
    expect(webImageIn(svc.fleet, 'canary')).to.equal('nginx:1.27');
    expect(webImageIn(svc.fleet, 'production')).to.equal('nginx:1.27');
    expect(svc.fleet.writes('production')).to.deep.equal([]);
  });
});
