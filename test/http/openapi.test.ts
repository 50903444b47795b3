import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import request from 'supertest';
import { z } from 'zod';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import type { ToolDefinition } from '../../domain/tools/tool-definition.js';
import { auth, buildTestApp } from '../support/test-app.js';

describe('HTTP GET /api/v1/openapi', () => {
  it('is a valid OpenAPI 3.0 document with info and one path per tool', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/api/v1/openapi').expect(200);
    const doc = res.body;
    expect(doc.openapi).to.match(/^3\.0\./);
    expect(doc.info).to.include.keys('title', 'description', 'version', 'contact');
    expect(doc.info.version).to.be.a('string');
    await SwaggerParser.validate(structuredClone(doc));
    for (const t of TOOL_DEFINITIONS) {
      const op = doc.paths[`/api/v1/tools/${t.name}`]?.post;
      expect(op, t.name).to.exist;
      expect(op.responses).to.include.keys('200', '400', '401', '404', '405', '500');
    }
    const remediate = doc.components.schemas.Tool_remediate_Input;
    expect(remediate.properties.evidence.maxLength).to.equal(20000);
    expect(remediate.properties.evidence.description).to.be.a('string').and.not.empty;
    expect(doc.paths['/api/v1/tools'].get.parameters.map((p: { name: string }) => p.name)).to.include.members(['category', 'tag', 'search']);
    expect(doc.paths['/healthz'].get.security).to.deep.equal([]);
  });

  it('a new tool definition appears in the catalog, the document and validation with no other change', async () => {
    const extra: ToolDefinition = {
      name: 'explainResource',
      description: 'Explain a Kubernetes resource kind in plain words.',
      category: 'Documentation',
      tags: ['docs'],
      inputSchema: z.strictObject({ kind: z.string().min(1).describe('Resource kind, for example Deployment') }),
      outputSchema: z.object({ explanation: z.string() }),
    };
    const { app } = buildTestApp({}, { toolDefinitions: [...TOOL_DEFINITIONS, extra] });
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body;
    await SwaggerParser.validate(structuredClone(doc));
    expect(doc.paths['/api/v1/tools/explainResource'].post.requestBody).to.exist;
    expect(doc.components.schemas.Tool_explainResource_Input.properties.kind.description).to.equal('Resource kind, for example Deployment');
    const catalog = await request(app).get('/api/v1/tools').query({ category: 'Documentation' }).set(auth).expect(200);
    expect(catalog.body.data.tools.map((t: { name: string }) => t.name)).to.deep.equal(['explainResource']);
    const bad = await request(app).post('/api/v1/tools/explainResource').set(auth).send({}).expect(400);
    expect(bad.body.error.details[0].field).to.equal('kind');
  });

  it('documents X-Svc-Git-Token on every route that accepts it: the tools that push to git and the prompt routes that clone, no other', async () => {
    const { app } = buildTestApp();
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body;
    const headerOf = (op: { parameters?: { in: string; name: string; description?: string; required?: boolean }[] }) =>
      (op.parameters ?? []).find((p) => p.in === 'header' && p.name === 'X-Svc-Git-Token');
    const carrying: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, object>>)) {
      for (const [method, op] of Object.entries(ops)) if (headerOf(op)) carrying.push(`${method.toUpperCase()} ${path}`);
    }
    expect(carrying.sort()).to.deep.equal(
      [
        'GET /api/v1/prompts',
        'POST /api/v1/prompts/refresh',
        'POST /api/v1/prompts/{promptName}',
        'POST /api/v1/tools/deployManifests',
        'POST /api/v1/tools/operate',
        'POST /api/v1/tools/remediate',
      ].sort(),
    );
    const deploy = headerOf(doc.paths['/api/v1/tools/deployManifests'].post)!;
    expect(deploy.required).to.equal(false);
    expect(deploy.description)
      .to.include('with `gitops`')
      .and.include('used for that request only')
      .and.include('not forwarded across a cross-host redirect')
      .and.include('never appears in logs, error messages')
      .and.include('SVC_GIT_TOKEN');
    expect(headerOf(doc.paths['/api/v1/tools/remediate'].post)!.description).to.include('`delivery: "git"`');
    expect(headerOf(doc.paths['/api/v1/prompts'].get)!.description).to.include('cloning `repo`');
  });
});
