import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { PromptSourceResolver } from '../../application/prompts/prompt-source-resolver.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { PermissiveGitFetcher } from '../support/permissive-git-fetcher.js';
import { PROMPT_REPOS } from '../support/prompt-repos.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { auth, buildTestApp } from '../support/test-app.js';

const CANARY = 'canary-7Qx9-tok3n-must-not-leak';
const SPELLINGS = [
  CANARY,
  encodeURIComponent(CANARY),
  Buffer.from(`x-access-token:${CANARY}`).toString('base64'),
  Buffer.from(`user:${CANARY}`).toString('base64'),
  Buffer.from(CANARY).toString('base64'),
];

describe('canary token: never in responses, errors, logs, spans or cache keys', function () {
  this.timeout(60000);
  let git: GitHttpServer;
  let dataDir: string;

  before(async () => {
    git = await startGitHttpServer(PROMPT_REPOS);
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-canary-'));
  });
  after(async () => {
    await git.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('survives every path a token can take', async () => {
    const logger = new CapturingLogger();
    const tracer = new RecordingTracer();
    const env = {
      SVC_DATA_DIR: dataDir,
      SVC_ALLOWED_REPO_HOSTS: 'localhost',
      SVC_REPO_INTERNAL_HOSTS: 'localhost',
      SVC_GIT_TOKEN: CANARY,
      LOG_LEVEL: 'silent',
    };
    const strict = buildTestApp(env, { logger, tracer });
    const permissive = buildTestApp(env, { logger, tracer, gitFetcher: new PermissiveGitFetcher() });
    const configured = buildTestApp({ ...env, SVC_USER_PROMPTS_REPO: `http://user:${CANARY}@localhost:${git.port}/echo-auth/x.git` }, { logger, tracer });
    const base = git.baseUrl;
    const withUserinfo = (p: string) => `http://user:${CANARY}@localhost:${git.port}${p}`;
    const asUsername = (p: string) => `http://${CANARY}@localhost:${git.port}${p}`;

    const captured: string[] = [];
    const keep = (res: request.Response) => captured.push(res.text, JSON.stringify(res.headers));
    const header = { ...auth, 'X-Svc-Git-Token': CANARY };

    for (const app of [strict.app, permissive.app]) {
      for (const repo of [
        `${base}/public.git`,
        `${base}/private.git`,
        `${base}/echo-auth/x.git`,
        `${base}/redirect/private.git`,
        `${base}/redirect/echo-auth/x.git`,
        `${base}/error-text/x.git`,
        `${base}/error-html/x.git`,
        `${base}/not-a-repo/x`,
        `http://localhost:${git.refusedPort}/x.git`,
        `${base}/public.git?access_token=${CANARY}`,
      ]) {
        keep(await request(app).get('/api/v1/prompts').query({ repo }).set(header));
        keep(
          await request(app)
            .post('/api/v1/prompts/rollout-check')
            .query({ repo })
            .set(header)
            .send({ arguments: { deployment: 'd' } }),
        );
        keep(await request(app).post('/api/v1/prompts/refresh').set(header).send({ repo }));
      }
      for (const repo of [
        withUserinfo('/public.git'),
        withUserinfo('/echo-auth/x.git'),
        asUsername('/echo-auth/x.git'),
        withUserinfo('/redirect/echo-auth/x.git'),
        withUserinfo('/private.git'),
        withUserinfo('/not-a-repo/x'),
        `http://user:${CANARY}@localhost:${git.refusedPort}/x.git`,
        `http://user:${CANARY}@127.0.0.1/x.git`,
        `ftp://user:${CANARY}@localhost/x.git`,
        `${CANARY}@localhost:x.git`,
        `http:user:${CANARY}@localhost:${git.port}/echo-auth/x.git`,
        `http:/user:${CANARY}@127.0.0.1/x.git`,
        ` \t${withUserinfo('/not-a-repo/x')}`,
        `ht\ntp://user:${CANARY}@localhost:${git.port}/not-a-repo/x`,
        `https://localhost/x.git?private_token=${CANARY}&x-amz-security-token=${CANARY}`,
      ]) {
        keep(await request(app).get('/api/v1/prompts').query({ repo }).set(auth));
        keep(await request(app).post('/api/v1/prompts/refresh').set(auth).send({ repo }));
      }
      keep(await request(app).get('/api/v1/prompts').set(header));
    }
    keep(await request(configured.app).get('/api/v1/prompts').set(header));
    keep(await request(configured.app).post('/api/v1/prompts/refresh').set(header).send({}));

    const everything = [
      ...captured,
      logger.text(),
      JSON.stringify(tracer.spans.map((s) => ({ name: s.name, attributes: s.attributes, error: s.error && String((s.error as Error).message) }))),
    ];
    for (const app of [strict, permissive, configured]) {
      const resolver = app.container.resolve<PromptSourceResolver>(TOKENS.PromptSourceResolver);
      const slots = (resolver as unknown as { cache: { slots: Record<string, { entry?: { key: string; identity: string }; inflight: Map<string, unknown> }> } })
        .cache.slots;
      for (const slot of Object.values(slots)) everything.push(slot.entry?.key ?? '', slot.entry?.identity ?? '', ...slot.inflight.keys());
    }
    const haystack = everything.join('\n');

    // the run really exercised the token: the git server received it, and the echo endpoint reflected it
    const sent = git.requests.filter((r) => r.authorization && Buffer.from(r.authorization.slice(6), 'base64').toString().includes(CANARY));
    expect(sent.length).to.be.greaterThan(10);
    expect(logger.lines.length).to.be.greaterThan(50);
    expect(tracer.spans.length).to.be.greaterThan(20);

    for (const spelling of SPELLINGS) {
      const at = haystack.indexOf(spelling);
      expect(at, `found ${spelling} in: ${haystack.slice(Math.max(0, at - 200), at + 100)}`).to.equal(-1);
    }
    expect(haystack).to.contain('received Basic ***');
  });
});
