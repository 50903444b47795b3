import { expect } from 'chai';
import request from 'supertest';
import type { ToolContext, ToolHandler } from '../../application/tool-handler.js';
import type { Caller } from '../../domain/auth/caller.js';
import { auth, buildTestApp } from '../support/test-app.js';

/** Remembers the caller each run was given (its answer fits no tool schema, so outputs are not checked here). */
class CallerEcho implements ToolHandler {
  readonly callers: Caller[] = [];
  async execute(_input: Record<string, unknown>, context: ToolContext) {
    this.callers.push(context.caller);
    return { ok: true };
  }
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const mcpCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'deployManifests', arguments: { solutionId: 'sol_0123456789abcdef0123456789abcdef' } },
});

describe('The caller reaches every tool run', () => {
  it('over REST and MCP, the holder of SVC_AUTH_TOKEN is the static admin, named and never the token', async () => {
    const echo = new CallerEcho();
    const { app } = buildTestApp({}, { verifyToolOutputs: false, toolHandlers: { deployManifests: echo } });
    await request(app).post('/api/v1/tools/deployManifests').set(auth).send({ solutionId: 'sol_0123456789abcdef0123456789abcdef' }).expect(200);
    await request(app).post('/mcp').set(auth).set(mcpHeaders).send(mcpCall(1)).expect(200);
    expect(echo.callers).to.have.length(2);
    for (const caller of echo.callers) {
      expect(caller).to.deep.equal({ id: 'static:svc:admin', username: 'admin', groups: [], roles: ['viewer', 'operator', 'admin'], kind: 'static' });
    }
  });

  it('without authentication (loopback only) the caller is anonymous', async () => {
    const echo = new CallerEcho();
    const { app } = buildTestApp({ SVC_AUTH_TOKEN: undefined }, { verifyToolOutputs: false, toolHandlers: { deployManifests: echo } });
    await request(app).post('/api/v1/tools/deployManifests').set('Host', 'localhost').send({ solutionId: 'sol_0123456789abcdef0123456789abcdef' }).expect(200);
    expect(echo.callers.map((c) => [c.username, c.kind])).to.deep.equal([['anonymous', 'anonymous']]);
  });
});
