import { startAccessServer, type AccessServer } from './access-server.js';
import type { FleetFixture } from './fleet-fixture.js';
import { startModelStandIn, type ModelStandIn } from './model-stand-ins.js';

/** What a suite's svc on a fleet holds: the scripted model, the clusters and svc serving them. */
export interface SvcOnFleet {
  chat: ModelStandIn;
  fleet: FleetFixture;
  server: AccessServer;
}

/**
 * Registers the suite's before and after hooks: an OpenAI stand-in, the fleet
 * `start` makes, and svc (a real process) serving both; all stopped after the
 * suite. The returned object is filled in once the before hook has run.
 */
export function svcOnFleet(start: () => Promise<FleetFixture>): SvcOnFleet {
  const ctx = {} as SvcOnFleet;
  before(async () => {
    ctx.chat = await startModelStandIn('openai');
    ctx.fleet = await start();
    ctx.server = await startAccessServer({ env: { ...ctx.chat.env(), ...ctx.fleet.env } });
  });
  after(async () => {
    await ctx.server?.stop();
    await ctx.fleet?.close();
    await ctx.chat?.close();
  });
  return ctx;
}
