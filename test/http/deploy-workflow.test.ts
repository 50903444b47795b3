import { expect } from 'chai';
import request from 'supertest';
import { SOLUTION_LABEL } from '../../domain/deployment/manifest-labels.js';
import { canonicalJson } from '../../domain/ledger/canonical-json.js';
import { ENTRY_FIELDS } from '../support/ledger-records.js';
import { auth } from '../support/test-app.js';
import { webManifests } from '../support/deploy-kit.js';
import { suiteProviders } from '../support/model-stand-ins.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;

for (const provider of suiteProviders('anthropic'))
  describe(`deployment workflow over REST on the real app, against the Kubernetes stand-in and a scripted model [${provider}]`, () => {
    let s: WorkflowStandIns;
    beforeEach(async () => {
      s = await WorkflowStandIns.start(provider);
    });
    afterEach(async () => {
      await s.close();
    });

    it('runs the five tools in order and ends with ready objects in the stand-in', async () => {
      const t = await s.app();
      const { call } = t;
      s.answer();
      const steps = await runWorkflow(call);
      const [rec, chosen, required, , , open, gen, dep] = steps.map((x) => x.result);

      expect(rec.solutions).to.have.length(1);
      expect(rec.solutions[0].resources.map((r: Json) => r.kind)).to.deep.equal(['Deployment', 'Service']);
      expect(rec.solutions[0].droppedResources).to.deep.equal([
        { kind: 'HTTPRoute', apiVersion: 'gateway.networking.k8s.io/v1', reason: 'this cluster does not serve that kind' },
      ]);
      expect(rec.solutions[0]).to.deep.include({ patternsApplied: ['web-tier'], policiesRespected: ['max-replicas'] });
      expect(s.chat.requests[0].messages[1].content).to.include('web-tier').and.include('max-replicas').and.include('apps/v1 StatefulSet');

      // questions from the stand-in's real OpenAPI v3 schemas, the policy as a rule
      const replicas = chosen.questions.basic.find((q: Json) => q.id === 'deployment-replicas');
      expect(replicas.validation).to.deep.equal({ maximum: 3 });
      expect(replicas.text).to.include('Number of desired pods');
      expect(chosen.questions.basic.find((q: Json) => q.id === 'service-type').validation.enum).to.deep.equal([
        'ClusterIP',
        'ExternalName',
        'LoadBalancer',
        'NodePort',
      ]);
      expect(required.readyForManifests).to.equal(true);
      expect(open.nextSteps.map((n: Json) => n.tool)).to.deep.equal(['generateManifests']);

      expect(gen.attempts).to.equal(1);
      expect(gen.objects).to.deep.equal([
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
        { apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'x' },
      ]);
      expect(gen.manifests).to.include(`${SOLUTION_LABEL}: ${rec.solutions[0].solutionId}`);
      // two dry runs at generate time, then at deploy time every object dry-run again before the first apply
      const patches = s.kube.requests.filter((r) => r.method === 'PATCH').map((r) => r.query.get('dryRun'));
      expect(patches).to.deep.equal(['All', 'All', 'All', 'All', null, null]);

      expect(dep.status, JSON.stringify(dep)).to.equal('ready');
      expect(dep.ledgerIds).to.have.length(2);
      const entries = (await request(t.app).get('/api/v1/changes').query({ tool: 'deployManifests' }).set(auth).expect(200)).body.data.changes;
      expect(entries.map((e: Json) => [e.target.kind, e.before, e.inverse, e.outcome.status])).to.deep.equal([
        ['Deployment', null, { method: 'delete' }, 'applied'],
        ['Service', null, { method: 'delete' }, 'applied'],
      ]);
      // each entry records the apply that reached the API server: its body (keys ordered alike) and content type
      const applied = s.kube.requests.filter((r) => r.method === 'PATCH' && r.query.get('dryRun') === null);
      for (const e of entries) {
        expect(e).to.include.all.keys(...ENTRY_FIELDS.filter((f) => !['rationale', 'risk'].includes(f)));
        expect(e).to.deep.include({
          tool: 'deployManifests',
          approval: { mode: 'manual', by: 'admin' },
          change: { ...e.change, method: 'apply', patchType: 'apply' },
        });
        const sent = applied.find((r) => r.path.endsWith(`/${e.target.kind === 'Service' ? 'services' : 'deployments'}/web`))!;
        expect(sent.contentType).to.equal('application/apply-patch+yaml');
        expect(canonicalJson(JSON.parse(sent.body!))).to.equal(canonicalJson(e.change.body));
      }
      expect(dep.objects.map((o: Json) => [o.kind, o.name, o.ready])).to.deep.equal([
        ['Service', 'web', true],
        ['Deployment', 'web', true],
      ]);
      const stored = s.kube.objects.get('/apis/apps/v1/namespaces/x/deployments/web')!;
      expect(stored.status.availableReplicas).to.equal(2);
      expect(stored.metadata.labels[SOLUTION_LABEL]).to.equal(rec.solutions[0].solutionId);
      expect([...s.kube.objects.values()].filter((o) => o.kind === 'Pod' && o.metadata.namespace === 'x')).to.have.length(2);
    });

    it('refuses a policy-breaking answer with 400, and out-of-order calls with 400 naming the next call', async () => {
      const { call } = await s.app();
      s.answer(1);
      const rec = await call('recommend', { intent: 'an nginx web server for the shop front end' });
      const solutionId = rec.solutions[0].solutionId;
      const early = await call('generateManifests', { solutionId }, 400);
      expect(early.error).to.include({ code: 'VALIDATION_ERROR' });
      expect(early.error.message).to.match(/Next call: chooseSolution/);
      await call('chooseSolution', { solutionId });
      expect((await call('deployManifests', { solutionId }, 400)).error.message).to.match(/Next call: answerQuestion with stage "required"/);
      await call('answerQuestion', { solutionId, stage: 'required', answers: { name: 'web', 'deployment-image': 'nginx:1.25' } });
      const forbidden = await call('answerQuestion', { solutionId, stage: 'basic', answers: { 'deployment-replicas': 5 } }, 400);
      expect(forbidden.error.message).to.equal(
        'Invalid answer for question "deployment-replicas": policy max-replicas (at most 3 replicas): must be at most 3, got 5',
      );
      expect(forbidden.error.details).to.deep.include({ question: 'deployment-replicas', rule: 'policy:max-replicas' });
      expect((await call('deployManifests', { solutionId }, 400)).error.message).to.match(/Next call: generateManifests/);
      const gone = await call('chooseSolution', { solutionId: `sol_${'a'.repeat(32)}` }, 400);
      expect(gone.error.message).to.match(/Unknown or expired session: sol_a+\. Call recommend/);
      expect((await call('deployManifests', { solutionId, timeout: 601 }, 400)).error.code).to.equal('VALIDATION_ERROR');
    });

    it('repairs manifests the API server refuses (selector mismatch twice), and a deploy that times out names what is pending', async () => {
      const { call } = await s.app();
      const broken = webManifests('web', 1, 'ghcr.io/acme/missing:1');
      (broken[0].spec as Json).template.metadata.labels = { app: 'other' };
      s.manifests = [broken, broken, webManifests('web', 1, 'ghcr.io/acme/missing:1')];
      s.answer(4);
      const rec = await call('recommend', { intent: 'an nginx web server for the shop front end' });
      const solutionId = rec.solutions[0].solutionId;
      await call('chooseSolution', { solutionId });
      await call('answerQuestion', { solutionId, stage: 'required', answers: { name: 'web', 'deployment-image': 'ghcr.io/acme/missing:1' } });
      const gen = await call('generateManifests', { solutionId });
      expect(gen.attempts).to.equal(3);
      const third = s.chat.requests.at(-1)!.messages.at(-1).content as string;
      expect(third).to.include('selector` does not match template `labels`').and.include('<data name="errors">');

      const dep = await call('deployManifests', { solutionId, timeout: 20 });
      expect(dep.status).to.equal('timeout');
      expect(dep.pending.map((p: Json) => `${p.kind} ${p.name}`)).to.deep.equal(['Deployment web']);
      expect(JSON.stringify(dep.pending[0].events)).to.match(/ImagePullBackOff|Failed to pull image|ErrImagePull/);
      expect(dep.message).to.match(/^Not ready after 20 s: Deployment web \(0 of 1 replicas available, 1 updated\)\. The change made things worse \(/);
      // svc's verdict: degraded by the pull failure; manual deploys default to onFailure report, so it stays, with the calls that revert it
      expect(dep.health).to.deep.include({ verdict: 'degraded', onFailure: 'report' });
      expect(dep.health.evidence.join('\n')).to.match(
        /Deployment default\/web: container web of pod web-[a-z0-9-]+ is waiting in (ImagePullBackOff|ErrImagePull)|Warning Failed/,
      );
      expect(dep.health.revertCalls.map((c: Json) => c.ledgerId)).to.deep.equal([...dep.ledgerIds].reverse());

      // the image appears in the registry: deploying again is idempotent (same objects, same generation) and ends ready
      s.kube.knownImages.set('ghcr.io/acme/missing:1', 16);
      const generation = s.kube.objects.get('/apis/apps/v1/namespaces/default/deployments/web')!.metadata.generation;
      const again = await call('deployManifests', { solutionId, timeout: 120 });
      expect(again.status, JSON.stringify(again)).to.equal('ready');
      expect(s.kube.objects.get('/apis/apps/v1/namespaces/default/deployments/web')!.metadata.generation).to.equal(generation);
      expect([...s.kube.objects.values()].filter((o) => o.kind === 'Deployment')).to.have.length(1);
    });

    it('fails clearly after 10 refused attempts, listing the last errors', async () => {
      const { call } = await s.app();
      const broken = webManifests();
      (broken[0].spec as Json).replicas = -1;
      s.manifests = [broken];
      s.answer(11);
      const rec = await call('recommend', { intent: 'an nginx web server for the shop front end' });
      const solutionId = rec.solutions[0].solutionId;
      await call('chooseSolution', { solutionId });
      await call('answerQuestion', { solutionId, stage: 'required', answers: { name: 'web', 'deployment-image': 'nginx:1.25' } });
      const failed = await call('generateManifests', { solutionId }, 500);
      expect(failed.error.code).to.equal('EXECUTION_ERROR');
      expect(failed.error.message).to.match(/refused 10 times.*spec.replicas: Invalid value: -1/);
      expect(s.chat.requests.filter((r) => r.response_format?.json_schema?.name === 'manifests')).to.have.length(10);
    });
  });
