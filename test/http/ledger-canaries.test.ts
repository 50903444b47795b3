import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAccessServer, type AccessServer } from '../support/access-server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OidcServer } from '../support/oidc-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { analysisAnswer, callFn, containerPatch, verifiedAnswer, webDeployment } from '../support/remediation-fixtures.js';
import { runCli } from '../support/run-cli.js';

type Json = Record<string, any>;
const hex = () => randomBytes(10).toString('hex');
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const b64 = (t: string) => Buffer.from(t).toString('base64');
const SECRET = { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'x' };

/**
 * Canaries: every credential svc holds or is handed (the static token, a
 * tokens-file token, an OIDC JWT, the model API key, an SVC_LLM_HEADERS
 * value, the configured and the per-request git token) and every Secret
 * value, pasted into an issue, an intent and a model's rationale, never
 * shows in the ledger as stored (file and Redis), in GET /changes answers,
 * or in the CLI's output.
 */
for (const store of ['file', 'redis'] as const)
  describe(`ledger canaries: no credential or Secret value in any entry, answer or CLI output (${store} ledger)`, function () {
    this.timeout(60_000);
    let kube: KubeApiServer;
    let chat: OpenAiChatServer;
    let idp: OidcServer;
    let redis: RedisServer | undefined;
    let server: AccessServer;
    let dir: string;
    const c = {
      STATIC: `static-${hex()}`,
      FILE: `file-${hex()}`,
      HEADER: `hdr-${hex()}`,
      GIT_CONFIG: `gitcfg-${hex()}`,
      GIT_REQUEST: `gitreq-${hex()}`,
      ENV: `envpw-${hex()}`,
      SECRET_OLD: `old-secret-${hex()}`,
      SECRET_NEW: `new-secret-${hex()}`,
      JWT: '',
      API_KEY: '',
    };
    const canaries = () => [...Object.values(c), b64(c.SECRET_OLD), b64(c.SECRET_NEW)];
    const leaks = (text: string) => canaries().filter((k) => text.includes(k));

    before(async function () {
      if (store === 'redis') {
        requireRedisServer(this);
        redis = await RedisServer.start();
      }
      [kube, chat, idp] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start(), OidcServer.start(['RS256'])]);
      kube.create(webDeployment('nginx:9.9-missing') as Json);
      kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'x' }, type: 'Opaque', data: { password: b64(c.SECRET_OLD) } });
      kube.settle();
      c.API_KEY = chat.apiKey;
      c.JWT = await idp.token({ sub: 'alice', groups: ['sre'] });
      dir = mkdtempSync(path.join(tmpdir(), 'svc-ledger-canary-'));
      writeFileSync(path.join(dir, 'tokens'), `bob operator ${sha(c.FILE)}\n`);
      server = await startAccessServer({
        env: {
          SVC_DATA_DIR: dir,
          SVC_AUTH_TOKEN: c.STATIC,
          SVC_AUTH_TOKENS_FILE: path.join(dir, 'tokens'),
          SVC_ROLES: 'operator=sre;viewer=*',
          ...idp.env(),
          OPENAI_API_KEY: chat.apiKey,
          OPENAI_BASE_URL: chat.baseUrl,
          SVC_LLM_MODEL: 'gpt-test',
          SVC_LLM_MAX_RETRIES: '0',
          SVC_LLM_HEADERS: JSON.stringify({ 'x-gateway-key': c.HEADER }),
          SVC_GIT_TOKEN: c.GIT_CONFIG,
          KUBECONFIG: kube.writeKubeconfig(),
          ...(redis ? { REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'svc-canary:' } : {}),
        },
      });
    });
    after(async () => {
      await server?.stop();
      await Promise.all([kube?.close(), chat?.close(), idp?.close(), redis?.stop()]);
      rmSync(dir, { recursive: true, force: true });
    });

    const call = async (token: string, method: string, pathname: string, body?: Json, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${pathname}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) as Json };
    };
    const stored = async (): Promise<string> => {
      if (!redis) return readFileSync(path.join(dir, 'ledger', 'changes.jsonl'), 'utf8');
      const { RedisConnection } = await import('../../infrastructure/redis/redis-connection.js');
      const { CapturingLogger } = await import('../support/capturing-logger.js');
      const { waitReady } = await import('../support/redis-fixture.js');
      const conn = new RedisConnection(redis.url, 'svc-canary:', new CapturingLogger());
      try {
        await waitReady(conn);
        return JSON.stringify(await conn.client.xrange('svc-canary:ledger', '-', '+'));
      } finally {
        await conn.close();
      }
    };

    it('a remediate (JWT caller, git token on the request) and an operate on a Secret (tokens-file caller) leave entries without a single canary', async () => {
      const pasted = `Authorization: Bearer ${c.FILE}; token=${c.STATIC}; id token ${c.JWT}; git ${c.GIT_REQUEST}; DB_PASSWORD=${c.ENV}`;
      const action = { ...containerPatch('nginx:1.27'), rationale: `a log showed ${c.API_KEY} and ${c.HEADER}; ${pasted}` };
      chat.script(
        { content: 'bad tag' },
        { content: analysisAnswer({ actions: [action] }) },
        callFn('list_resources', { apiVersion: 'v1', kind: 'Pod', namespace: 'x' }),
        {
          content: verifiedAnswer(),
        },
      );
      const start = await call(c.JWT, 'POST', '/api/v1/tools/remediate', { issue: `web in x is down. I tried: ${pasted}` });
      expect(start.status, start.text).to.equal(200);
      const sessionId = start.json.data.result.sessionId;
      const done = await call(c.JWT, 'POST', '/api/v1/tools/remediate', { sessionId, executeChoice: 1 }, { 'X-Svc-Git-Token': c.GIT_REQUEST });
      expect(done.status, done.text).to.equal(200);
      const remediated = done.json.data.result.execution.outcome.report.outcomes[0].ledgerId;
      // seq 1 is its intent
      expect(remediated).to.match(/^chg_2_/);

      const patch = { type: 'patch', target: SECRET, patch: { stringData: { password: c.SECRET_NEW } }, description: 'Rotate the db password', risk: 'high' };
      chat.script({ content: 'the Secret db holds the password' }, { content: planJson([{ ...patch, rationale: `rotate it; ${pasted}` }]) });
      const git = { 'X-Svc-Git-Token': c.GIT_REQUEST };
      const plan = await call(c.FILE, 'POST', '/api/v1/tools/operate', { intent: `rotate the db password in x; ${pasted}` }, git);
      expect(plan.status, plan.text).to.equal(200);
      const ran = await call(c.FILE, 'POST', '/api/v1/tools/operate', { sessionId: plan.json.data.result.sessionId, executeChoice: 1 }, git);
      expect(ran.status, ran.text).to.equal(200);
      const rotated = ran.json.data.result.execution.outcome.actions[0].ledgerId;
      expect(rotated).to.match(/^chg_4_/);
      // the Secret did change in the cluster: the canary is real
      expect(JSON.stringify(kube.objects.get(kube.pathOf('v1', 'Secret', 'db', 'x')))).to.contain(c.SECRET_NEW);
      expect((await call(c.STATIC, 'POST', `/api/v1/changes/${remediated}/revert`, {})).status).to.equal(200);

      const raw = await stored();
      // three writes, each an intent and its outcome: the intents are stored as scrubbed as the outcomes
      expect(raw.match(/chg_\d+_[0-9a-f]{8}/g)?.filter((id, i, all) => all.indexOf(id) === i)).to.have.length(6);
      expect(leaks(raw), 'stored ledger').to.deep.equal([]);
      // the text was kept, its credentials scrubbed
      const entry = (await call(c.STATIC, 'GET', `/api/v1/changes/${remediated}`)).json.data;
      expect(entry.request).to.contain('I tried: Authorization: Bearer ***; token=***; id token ***; git ***; DB_PASSWORD=***');
      expect(entry.rationale).to.contain('a log showed *** and ***;');
      expect(entry.caller).to.deep.equal({ id: `oidc:${idp.issuer}:alice`, username: 'oidc:alice', roles: ['viewer', 'operator'] });
      const secretEntry = (await call(c.STATIC, 'GET', `/api/v1/changes/${rotated}`)).json.data;
      expect(secretEntry.change.body.stringData).to.deep.equal({ password: '***' });
      expect(secretEntry.before.other.data).to.deep.equal({ password: '***' });
      expect(secretEntry.inverse).to.equal(null);
      const secretIntent = (await call(c.STATIC, 'GET', `/api/v1/changes/${secretEntry.intentId}`)).json.data;
      expect(secretIntent).to.deep.include({ type: 'intent', change: secretEntry.change, before: secretEntry.before, rationale: secretEntry.rationale });

      const answers: string[] = [];
      for (const token of [c.STATIC, c.FILE, c.JWT]) {
        answers.push((await call(token, 'GET', '/api/v1/changes?limit=500')).text, (await call(token, 'GET', '/api/v1/changes/integrity')).text);
        for (const id of [remediated, rotated]) answers.push((await call(token, 'GET', `/api/v1/changes/${id}`)).text);
      }
      expect(answers.join('\n')).to.contain(remediated).and.contain('"ok":true');
      expect(leaks(answers.join('\n')), 'GET /changes answers').to.deep.equal([]);

      const cli: string[] = [];
      for (const token of [c.STATIC, c.FILE, c.JWT]) {
        const env = { SVC_URL: server.url, SVC_AUTH_TOKEN: token };
        for (const args of [
          ['changes', 'list'],
          ['changes', 'list', '-o', 'json'],
          ['changes', 'show', remediated],
          ['changes', 'show', rotated, '-o', 'json'],
          ['changes', 'verify'],
        ]) {
          const run = await runCli(args, env);
          expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(0);
          cli.push(run.stdout, run.stderr);
        }
      }
      expect(cli.join('\n')).to.contain(rotated);
      expect(leaks(cli.join('\n')), 'CLI output').to.deep.equal([]);
    });
  });
