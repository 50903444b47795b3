import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { buildTestApp } from '../support/test-app.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

describe('SVC_AUTH_TOKENS_FILE: named static tokens', function () {
  this.timeout(20000);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tokens-'));
  const file = path.join(dir, 'tokens');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a malformed line stops start-up naming the file and the line number', () => {
    writeFileSync(file, `# people\nana viewer ${sha('ana-token-123')}\nbob operator 1234\n`);
    expect(() => buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: file })).to.throw(/SVC_AUTH_TOKENS_FILE.*line 3/);
    expect(() => buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: path.join(dir, 'missing') })).to.throw(/SVC_AUTH_TOKENS_FILE.*cannot be read/);
  });

  it('each token is its own caller with its role; the file is re-read when it changes, without a restart', async () => {
    writeFileSync(file, `ana viewer ${sha('ana-token-123')}\nbob operator ${sha('bob-token-456')} sre,oncall\n`);
    const t = buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: file });
    try {
      await request(t.app).get('/api/v1/tools').set(bearer('ana-token-123')).expect(200);
      const refused = await request(t.app).post('/api/v1/tools/remediate').set(bearer('ana-token-123')).send({ issue: 'x' }).expect(403);
      expect(refused.body.error.message).to.equal('remediate needs the operator role; ana holds role viewer');
      await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789')).expect(401);
      const line = t.logger.lines.find((l) => l.msg === 'request' && l.fields?.user === 'ana');
      expect(line?.fields).to.include({ tokenKind: 'tokens-file' });

      // an atomic replace (as a ConfigMap update does): ana leaves, carol arrives
      writeFileSync(`${file}.new`, `bob operator ${sha('bob-token-456')}\ncarol admin ${sha('carol-token-789')}\n`);
      renameSync(`${file}.new`, file);
      const deadline = Date.now() + 8000;
      while ((await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789'))).status !== 200) {
        if (Date.now() > deadline) throw new Error('the tokens file was not re-read');
        await new Promise((r) => setTimeout(r, 100));
      }
      await request(t.app).get('/api/v1/tools').set(bearer('ana-token-123')).expect(401);

      // a broken edit fails closed for the lines it broke: bob's line no longer parses, so bob is refused; carol's still does
      await request(t.app).get('/api/v1/tools').set(bearer('bob-token-456')).expect(200);
      writeFileSync(file, `carol admin ${sha('carol-token-789')}\nbob operator ${sha('bob-token-456').slice(0, 60)}\nbroken line\n`);
      const until = Date.now() + 8000;
      while (!t.logger.lines.some((l) => l.msg.startsWith('tokens file re-read with errors'))) {
        if (Date.now() > until) throw new Error('the broken file was not noticed');
        await new Promise((r) => setTimeout(r, 100));
      }
      const logged = t.logger.lines.find((l) => l.msg.startsWith('tokens file re-read with errors'))!;
      expect(logged.fields?.errors).to.have.length(2);
      expect((logged.fields?.errors as string[])[0]).to.match(/^line 2: the third column/);
      await request(t.app).get('/api/v1/tools').set(bearer('bob-token-456')).expect(401);
      await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789')).expect(200);

      // a name used twice: both lines are left out; a file that cannot be read: no tokens-file token at all
      writeFileSync(file, `carol admin ${sha('carol-token-789')}\ncarol viewer ${sha('other-token-000')}\n`);
      const dup = Date.now() + 8000;
      while ((await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789'))).status !== 401) {
        if (Date.now() > dup) throw new Error('the repeated name was not noticed');
        await new Promise((r) => setTimeout(r, 100));
      }
      await request(t.app).get('/api/v1/tools').set(bearer('other-token-000')).expect(401);
      writeFileSync(file, `carol admin ${sha('carol-token-789')}\n`);
      const back = Date.now() + 8000;
      while ((await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789'))).status !== 200) {
        if (Date.now() > back) throw new Error('the repaired file was not re-read');
        await new Promise((r) => setTimeout(r, 100));
      }
      rmSync(file);
      const gone = Date.now() + 8000;
      while ((await request(t.app).get('/api/v1/tools').set(bearer('carol-token-789'))).status !== 401) {
        if (Date.now() > gone) throw new Error('the removed file was not noticed');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      for (const close of t.container.resolve((await import('../../infrastructure/tokens.js')).TOKENS.OnShutdown)) await close();
    }
  });
});
