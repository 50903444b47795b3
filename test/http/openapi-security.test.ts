import { expect } from 'chai';
import request from 'supertest';
import { buildTestApp } from '../support/test-app.js';

type Operation = { security?: unknown[] };
type Document = { security: unknown[]; paths: Record<string, Record<string, Operation>> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe('the OpenAPI document tells the truth about security', function () {
  this.timeout(60000);

  it('every documented operation answers 401 without a token exactly when the document asks for one', async () => {
    const { app } = buildTestApp();
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body as Document;
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const needsToken = (op.security ?? doc.security).length > 0;
        const url = path.replace(/\{[^}]+\}/g, 'x1');
        const res = method === 'get' || method === 'delete' ? await request(app)[method](url) : await request(app)[method](url).send({});
        checked.push(`${method} ${path}`);
        if ((res.status === 401) !== needsToken)
          wrong.push(`${method.toUpperCase()} ${path}: ${res.status} without a token; the document says ${needsToken ? 'bearer' : 'open'}`);
        if (needsToken) expect(res.headers['www-authenticate'], path).to.equal('Bearer realm="svc"');
      }
    }
    expect(wrong).to.deep.equal([]);
    // the controller routes, the upload route and one per tool
    expect(checked).to.include.members([
      'get /api/v1/tools',
      'get /api/v1/runs/{runId}',
      'get /readyz',
      'post /api/v1/prompts/sources',
      'post /api/v1/tools/version',
    ]);
    expect(checked.length).to.be.greaterThan(20);
  });

  it('marks open exactly the two public routes', async () => {
    const { app } = buildTestApp();
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body as Document;
    const open = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && (item[m].security ?? doc.security).length === 0).map((m) => `${m} ${path}`),
    );
    expect(open.sort()).to.deep.equal(['get /api/v1/openapi', 'get /healthz']);
  });
});
