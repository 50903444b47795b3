import { expect } from 'chai';
import request from 'supertest';
import { FakeDisk, FakeGitFetcher } from '../support/fake-prompt-git.js';
import { manifestOf, type ClientFile } from '../support/upload-manifests.js';
import { buildUploadsApp, SOURCES, uploadAuth } from '../support/uploads-app.js';

const md = (text: string) => Buffer.from(text, 'utf8');
const SKILL = md(
  '---\nname: deploy\ndescription: Deploy an app\narguments:\n  - name: app\n    description: App name\n    required: true\n  - name: ns\n    description: Namespace\n    required: false\n---\nDeploy {{app}} into {{ns}}.\n',
);
const TREE: ClientFile[] = [
  { path: 'skills/deploy/SKILL.md', bytes: SKILL },
  { path: 'skills/deploy/m-4755.sh', bytes: md('a'), mode: '4755' },
  { path: 'skills/deploy/m-1777', bytes: md('b'), mode: '1777' },
  { path: 'skills/deploy/m-0644', bytes: md('c'), mode: '0644' },
  { path: 'skills/deploy/m-777', bytes: md('d'), mode: '777' },
  { path: 'skills/deploy/m-abc', bytes: md('e'), mode: 'abc' },
  { path: 'skills/deploy/m-absent', bytes: md('f') },
  {
    path: 'triage.md',
    bytes: md('---\nname: triage\ndescription: Triage a pod\narguments:\n  - name: pod\n    description: Pod name\n    required: true\n---\nLook at {{pod}}\n'),
  },
];
const ID = 'https://alice:s3cret-t0ken@git.corp.example/team/skills.git';
const SCRUBBED = 'https://***:***@git.corp.example/team/skills.git';
const q = (id: string) => encodeURIComponent(id);

function setup(env: Record<string, string> = {}) {
  const fetcher = new FakeGitFetcher(new FakeDisk());
  return { ...buildUploadsApp(env, { gitFetcher: fetcher }), fetcher };
}

describe('?source= render and list of an uploaded skill source', () => {
  it('renders with full argument substitution, the skill folder files with sanitised modes, and the scrubbed source', async () => {
    const { app, fetcher } = setup();
    await request(app).post(SOURCES).set(uploadAuth).send(manifestOf(ID, TREE)).expect(200);
    const res = await request(app)
      .post(`/api/v1/prompts/deploy?source=${q(ID)}`)
      .set(uploadAuth)
      .send({ arguments: { app: 'shop', ns: 'prod' } })
      .expect(200);
    expect(res.body.data.description).to.equal('Deploy an app');
    expect(res.body.data.messages).to.deep.equal([{ role: 'user', content: { type: 'text', text: 'Deploy shop into prod.\n' } }]);
    expect(res.body.data.source).to.equal(SCRUBBED);
    const modes = Object.fromEntries(res.body.data.files.map((f: { path: string; mode: string }) => [f.path, f.mode]));
    expect(modes).to.deep.equal({
      'm-0644': '0644',
      'm-1777': '0777',
      'm-4755.sh': '0755',
      'm-777': '0777',
      'm-abc': '0644',
      'm-absent': '0644',
    });
    const file = res.body.data.files.find((f: { path: string }) => f.path === 'm-777');
    expect(Buffer.from(file.content, 'base64').toString()).to.equal('d');
    expect(JSON.stringify(res.body)).not.to.include('s3cret-t0ken');
    expect(fetcher.clones).to.have.length(0);
  });

  it('takes precedence over repo (even an invalid one) and the credential header, and never clones', async () => {
    const { app, fetcher } = setup();
    await request(app).post(SOURCES).set(uploadAuth).send(manifestOf('local:alice-k8s', TREE)).expect(200);
    for (const repo of ['https://github.com/org/prompts', 'ftp://nope.example/x', 'http://127.0.0.1/x']) {
      const res = await request(app)
        .post(`/api/v1/prompts/triage?source=local%3Aalice-k8s&repo=${q(repo)}&branch=dev&path=sub`)
        .set(uploadAuth)
        .set('X-Svc-Git-Token', 'header-token-123456')
        .send({ arguments: { pod: 'web-1' } })
        .expect(200);
      expect(res.body.data.source).to.equal('local:alice-k8s');
      expect(res.body.data.messages[0].content.text).to.equal('Look at web-1\n');
    }
    const list = await request(app)
      .get(`/api/v1/prompts?source=local%3Aalice-k8s&repo=${q('https://github.com/org/prompts')}`)
      .set(uploadAuth)
      .expect(200);
    expect(list.body.data.source).to.equal('local:alice-k8s');
    expect(fetcher.clones).to.have.length(0);
  });

  it('lists the prompts of the upload', async () => {
    const { app } = setup();
    await request(app).post(SOURCES).set(uploadAuth).send(manifestOf(ID, TREE)).expect(200);
    const res = await request(app)
      .get(`/api/v1/prompts?source=${q(ID)}`)
      .set(uploadAuth)
      .expect(200);
    expect(res.body.data.source).to.equal(SCRUBBED);
    expect(res.body.data.prompts).to.deep.equal([
      {
        name: 'deploy',
        description: 'Deploy an app',
        arguments: [
          { name: 'app', description: 'App name', required: true },
          { name: 'ns', description: 'Namespace', required: false },
        ],
      },
      { name: 'triage', description: 'Triage a pod', arguments: [{ name: 'pod', description: 'Pod name', required: true }] },
    ]);
  });

  it('a missing required argument is 400 naming it; an unknown prompt is 404 PROMPT_NOT_FOUND', async () => {
    const { app } = setup();
    await request(app).post(SOURCES).set(uploadAuth).send(manifestOf('local:a', TREE)).expect(200);
    const missing = await request(app).post('/api/v1/prompts/deploy?source=local%3Aa').set(uploadAuth).send({}).expect(400);
    expect(missing.body.error).to.deep.equal({ code: 'VALIDATION_ERROR', message: 'Missing required argument: app' });
    const unknown = await request(app).post('/api/v1/prompts/nope?source=local%3Aa').set(uploadAuth).send({}).expect(404);
    expect(unknown.body.error.code).to.equal('PROMPT_NOT_FOUND');
  });

  describe('an identifier that is not cached', () => {
    const expectNotFound = (res: request.Response, shown: string) => {
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.message.startsWith(`Ingested source not found: ${shown}. `), res.body.error.message).to.equal(true);
      expect(res.body.error.message).to.include('upload it again with POST /api/v1/prompts/sources');
      expect(res.body.error.message.replace(shown, '')).not.to.match(/git|clone/i);
      expect(JSON.stringify(res.body)).not.to.include('s3cret-t0ken');
    };

    it('never uploaded: 400 asking for a re-upload, no clone attempted (render and list)', async () => {
      const { app, fetcher } = setup();
      const render = await request(app)
        .post(`/api/v1/prompts/deploy?source=${q(ID)}&repo=${q('https://github.com/org/x')}`)
        .set(uploadAuth)
        .send({})
        .expect(400);
      expectNotFound(render, SCRUBBED);
      const list = await request(app)
        .get(`/api/v1/prompts?source=${q(ID)}`)
        .set(uploadAuth)
        .expect(400);
      expectNotFound(list, SCRUBBED);
      const empty = await request(app).post('/api/v1/prompts/deploy?source=').set(uploadAuth).send({}).expect(400);
      expect(empty.body.error.message).to.match(/^Ingested source not found: \. /);
      expect(fetcher.clones).to.have.length(0);
    });

    it('evicted: 400 asking for a re-upload', async () => {
      const { app } = setup({ SVC_SOURCES_MAX: '1' });
      await request(app).post(SOURCES).set(uploadAuth).send(manifestOf('local:first', TREE)).expect(200);
      await request(app)
        .post('/api/v1/prompts/triage?source=local%3Afirst')
        .set(uploadAuth)
        .send({ arguments: { pod: 'x' } })
        .expect(200);
      await request(app).post(SOURCES).set(uploadAuth).send(manifestOf('local:second', TREE)).expect(200);
      expectNotFound(await request(app).post('/api/v1/prompts/triage?source=local%3Afirst').set(uploadAuth).send({}).expect(400), 'local:first');
      await request(app)
        .post('/api/v1/prompts/triage?source=local%3Asecond')
        .set(uploadAuth)
        .send({ arguments: { pod: 'x' } })
        .expect(200);
    });

    it('lost on restart: a new app starts with nothing cached', async () => {
      const first = setup();
      await request(first.app).post(SOURCES).set(uploadAuth).send(manifestOf('local:gone', TREE)).expect(200);
      const restarted = setup();
      expectNotFound(await request(restarted.app).get('/api/v1/prompts?source=local%3Agone').set(uploadAuth).expect(400), 'local:gone');
    });
  });

  it('is bearer-gated', async () => {
    const { app } = setup();
    await request(app).post('/api/v1/prompts/deploy?source=local%3Aa').send({}).expect(401);
    await request(app).get('/api/v1/prompts?source=local%3Aa').expect(401);
  });
});
