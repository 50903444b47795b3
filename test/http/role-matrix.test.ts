import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Role } from '../../domain/auth/caller.js';
import { honoursAsync } from '../../domain/runs/run.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeIngestedSourceStore } from '../fakes/fake-ingested-source-store.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { startAccessServer, type AccessServer } from '../support/access-server.js';
import { counted } from '../support/counted.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore } from '../support/fake-vector-store.js';

type Who = Role | 'none';
const TOKENS: Record<Role, string> = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', admin: 'admin-token-0123456789' };
const RANK: Record<Who, number> = { none: -1, viewer: 0, operator: 1, admin: 2 };
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const SESSION = `rem_${'a'.repeat(32)}`;
const OPR = `opr_${'b'.repeat(32)}`;
const SOL = `sol_${'c'.repeat(32)}`;

/** Every tool call of the role table, with the role it needs. */
const TOOL_CALLS: Array<[tool: string, args: Record<string, unknown>, needs: Role]> = [
  ['version', {}, 'viewer'],
  ['recommend', { intent: 'a postgres database' }, 'operator'],
  ['chooseSolution', { solutionId: SOL }, 'operator'],
  ['answerQuestion', { solutionId: SOL, stage: 'required', answers: {} }, 'operator'],
  ['generateManifests', { solutionId: SOL }, 'operator'],
  ['deployManifests', { solutionId: SOL }, 'operator'],
  ['manageOrgData', { dataType: 'pattern', operation: 'list' }, 'viewer'],
  ['manageOrgData', { dataType: 'pattern', operation: 'search', query: 'db' }, 'viewer'],
  ['manageOrgData', { dataType: 'capabilities', operation: 'progress' }, 'viewer'],
  ['manageOrgData', { dataType: 'policy', operation: 'get', id: '00000000-0000-4000-8000-000000000000' }, 'viewer'],
  ['manageOrgData', { dataType: 'pattern', operation: 'delete', id: '00000000-0000-4000-8000-000000000000' }, 'admin'],
  ['manageOrgData', { dataType: 'pattern', operation: 'deleteAll', confirm: true }, 'admin'],
  ['manageOrgData', { dataType: 'capabilities', operation: 'scan' }, 'admin'],
  ['operate', { intent: 'scale web to 3' }, 'operator'],
  ['operate', { sessionId: OPR }, 'viewer'],
  ['operate', { sessionId: OPR, executeChoice: 1 }, 'operator'],
  ['operate', { sessionId: OPR, refinedIntent: 'scale web to 4' }, 'operator'],
  ['remediate', { issue: 'pod crashes' }, 'operator'],
  ['remediate', { sessionId: SESSION }, 'viewer'],
  ['remediate', { sessionId: SESSION, executeChoice: 1 }, 'operator'],
  ['remediate', { sessionId: SESSION, executeChoice: 2 }, 'operator'],
];

/** Every gated REST route that is not a tool call, with the role it needs. */
const ROUTES: Array<[method: 'GET' | 'POST', path: string, body: unknown, needs: Role]> = [
  ['GET', '/api/v1/tools', undefined, 'viewer'],
  ['GET', '/api/v1/tools?tag=ai', undefined, 'viewer'],
  ['GET', '/readyz', undefined, 'viewer'],
  ['GET', '/api/v1/sessions', undefined, 'viewer'],
  ['GET', '/api/v1/sessions?tool=operate&status=executed&limit=5', undefined, 'viewer'],
  ['GET', '/api/v1/prompts', undefined, 'viewer'],
  ['POST', '/api/v1/prompts/rollout-health', {}, 'viewer'],
  ['GET', '/api/v1/prompts?repo=https://github.com/acme/prompts', undefined, 'admin'],
  ['GET', '/api/v1/prompts?source=local:team', undefined, 'admin'],
  ['POST', '/api/v1/prompts/rollout-health?branch=dev', {}, 'admin'],
  ['POST', '/api/v1/prompts/rollout-health?path=x', {}, 'admin'],
  ['POST', '/api/v1/prompts/refresh', {}, 'admin'],
  ['POST', '/API/V1/Prompts/Refresh/', {}, 'admin'],
  ['POST', '/api/v1/prompts/sources', { source: 'local:team', files: [{ path: 'a.md', content: Buffer.from('# A').toString('base64') }] }, 'admin'],
];

describe('role matrix: every tool and route x viewer, operator, admin, no token, over REST and MCP', function () {
  this.timeout(60000);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-roles-'));
  const calls: string[] = [];
  let server: AccessServer;

  before(async () => {
    const file = path.join(dir, 'tokens');
    writeFileSync(
      file,
      Object.entries(TOKENS)
        .map(([role, token]) => `${role}-user ${role} ${sha(token)}`)
        .join('\n'),
    );
    server = await startAccessServer({
      env: { SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: file, SVC_RATE_LIMIT_ENABLED: 'false' },
      overrides: {
        llm: counted(new FakeLlm(), 'llm', calls),
        cluster: counted(new FakeCluster(), 'cluster', calls),
        vectorStore: counted(new FakeVectorStore(), 'vectorStore', calls),
        embedder: counted(new FakeEmbedder(), 'embedder', calls),
        sessions: counted(new FakeSessionStore({ clock: { now: () => Date.now() } }), 'sessions', calls),
        ingestedSources: counted(new FakeIngestedSourceStore(), 'ingestedSources', calls),
      },
    });
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const headers = (who: Who): Record<string, string> => (who === 'none' ? {} : { Authorization: `Bearer ${TOKENS[who]}` });
  const expectRefusal = (status: number, body: { error?: { code: string; message: string } }, who: Who, needs: Role) => {
    if (who === 'none') {
      expect(status).to.equal(401);
      return;
    }
    expect(status).to.equal(403);
    expect(body.error!.code).to.equal('FORBIDDEN');
    expect(body.error!.message).to.contain(`needs the ${needs} role; ${who}-user holds role`);
  };

  for (const who of ['none', 'viewer', 'operator', 'admin'] as const) {
    for (const [tool, args, needs] of TOOL_CALLS) {
      it(`REST ${tool} ${JSON.stringify(args)} as ${who}: ${RANK[who] >= RANK[needs] ? 'runs' : 'refused, reaching nothing'}`, async () => {
        calls.length = 0;
        const res = await fetch(`${server.url}/api/v1/tools/${tool}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers(who) },
          body: JSON.stringify(args),
        });
        const body = (await res.json()) as { error?: { code: string; message: string } };
        if (RANK[who] >= RANK[needs]) expect([401, 403], JSON.stringify(body)).to.not.include(res.status);
        else {
          expectRefusal(res.status, body, who, needs);
          expect(calls).to.deep.equal([]);
        }
      });
    }
    for (const [tool, args, needs] of TOOL_CALLS.filter(([t, a, n]) => honoursAsync(t, a) && RANK[who] < RANK[n])) {
      it(`REST ${tool} ${JSON.stringify(args)} as ${who} with Prefer: respond-async: the same refusal, before any run exists`, async () => {
        calls.length = 0;
        const res = await fetch(`${server.url}/api/v1/tools/${tool}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', prefer: 'respond-async', ...headers(who) },
          body: JSON.stringify(args),
        });
        expectRefusal(res.status, (await res.json()) as { error?: { code: string; message: string } }, who, needs);
        expect(calls).to.deep.equal([]);
        const runs = await fetch(`${server.url}/api/v1/runs`, { headers: headers('admin') });
        expect(((await runs.json()) as { data: { runs: unknown[] } }).data.runs).to.deep.equal([]);
      });
    }
    for (const [method, route, body, needs] of ROUTES) {
      it(`REST ${method} ${route} as ${who}`, async () => {
        calls.length = 0;
        const res = await fetch(`${server.url}${route}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers(who) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (RANK[who] >= RANK[needs]) expect([401, 403], text).to.not.include(res.status);
        else {
          expectRefusal(res.status, JSON.parse(text), who, needs);
          expect(calls).to.deep.equal([]);
        }
      });
    }
  }

  it('public routes stay public for everyone: /healthz, the OpenAPI document, /docs', async () => {
    for (const route of ['/healthz', '/api/v1/openapi', '/docs']) expect((await fetch(`${server.url}${route}`)).status, route).to.equal(200);
  });

  it('MCP without a token is 401', async () => {
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).to.equal(401);
  });

  for (const who of ['viewer', 'operator', 'admin'] as const) {
    it(`MCP as ${who}: tools/list lists every tool, tools/call refuses what the role does not allow, reaching nothing; prompts/get works`, async () => {
      const client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: headers(who) } }));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.deep.equal(TOOL_DEFINITIONS.map((d) => d.name));
        for (const [tool, args, needs] of TOOL_CALLS) {
          calls.length = 0;
          const result = (await client.callTool({ name: tool, arguments: args })) as {
            isError?: boolean;
            structuredContent?: { error?: { code: string; message: string } };
          };
          const error = result.structuredContent?.error;
          if (RANK[who] >= RANK[needs]) expect(error?.code, `${tool} ${JSON.stringify(args)}`).to.not.equal('FORBIDDEN');
          else {
            expect(result.isError).to.equal(true);
            expect(error?.code, `${tool} ${JSON.stringify(args)}`).to.equal('FORBIDDEN');
            expect(error?.message).to.contain(`needs the ${needs} role`);
            expect(calls, `${tool} ${JSON.stringify(args)}`).to.deep.equal([]);
          }
        }
        const prompt = await client.getPrompt({ name: 'rollout-health', arguments: { namespace: 'default', deployment: 'web' } }).catch((e: Error) => e);
        expect(String((prompt as Error).message ?? '')).to.not.contain('FORBIDDEN');
      } finally {
        await client.close();
      }
    });
  }
});
