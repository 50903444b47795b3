import { expect } from 'chai';
import { fieldCondition, scenarioCluster } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { authCovers, imageLocation, podPulls } from '../../lab/sandbox/kube/kube-image-pull.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';

const IMAGE = 'registry.example/partners/feed:1.3.0';
const dockerConfig = (auths: Record<string, unknown>) => Buffer.from(JSON.stringify({ auths })).toString('base64');

describe('pulls: a private registry gives its image only to a pod holding a pull secret for its host', function () {
  this.timeout(30_000);

  describe('credential keys name a registry as the kubelet keyring matches them', () => {
    it('matches the host in any spelling (scheme, /v2/, a label wildcard, a path prefix); fails another host, port or path', () => {
      const verdicts: Record<string, boolean> = {
        'registry.example': true,
        'https://registry.example': true,
        'https://registry.example/v2/': true,
        '*.example': true,
        'registry.example/partners': true,
        'registry.example/other': false,
        'registry.example:5000': false,
        'other.example': false,
        'ghcr.io': false,
        example: false,
      };
      expect(Object.fromEntries(Object.keys(verdicts).map((k) => [k, authCovers(k, IMAGE)]))).to.deep.equal(verdicts);
    });

    it('reads Docker Hub names and a registry port', () => {
      expect(imageLocation('nginx:1.25')).to.deep.equal({ host: 'docker.io', repository: 'library/nginx' });
      expect(imageLocation('host:5000/team/app@sha256:ab')).to.deep.equal({ host: 'host:5000', repository: 'team/app' });
      expect(authCovers('https://index.docker.io/v1/', 'acme/api:2')).to.equal(true);
      expect(authCovers('host:5000', 'host:5000/team/app:1')).to.equal(true);
      expect(authCovers('host', 'host:5000/team/app:1')).to.equal(false);
    });

    it('is a condition and a cluster setting of the scenario format, bounded', () => {
      expect(fieldCondition.safeParse({ pulls: true }).success).to.equal(true);
      expect(fieldCondition.safeParse({ pulls: false }).success).to.equal(false);
      expect(fieldCondition.safeParse({ pulls: true, path: 'spec.replicas' }).success).to.equal(false);
      const base = { namespaces: ['x'], objects: ['c.yaml'], images: {} };
      expect(scenarioCluster.safeParse({ ...base, privateRegistries: ['registry.example:5000'] }).success).to.equal(true);
      expect(scenarioCluster.safeParse({ ...base, privateRegistries: ['https://registry.example'] }).success).to.equal(false);
      expect(scenarioCluster.safeParse({ ...base, privateRegistries: Array(11).fill('r.example') }).success).to.equal(false);
    });
  });

  describe('the sandbox kubelet and the health rule of secret-imagepullsecret-wrong-name', () => {
    let sandbox: ScenarioCluster | undefined;
    afterEach(async () => {
      await sandbox?.close();
      sandbox = undefined;
    });

    const objects = (s: ScenarioCluster, kind: string): Obj[] => [...s.server.objects.values()].filter((o) => o.kind === kind);
    const start = async () => (sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'secret-imagepullsecret-wrong-name')));
    const deployment = (s: ScenarioCluster) => objects(s, 'Deployment').find((o) => o.metadata.name === 'feed')!;
    /** A change to feed's pod template, rolled out as the API would (a new generation). */
    const changeTemplate = (s: ScenarioCluster, change: (podSpec: Obj) => void) =>
      s.server.update(deployment(s), (d) => {
        change(d.spec.template.spec);
        d.metadata.generation += 1;
      });
    const addSecret = (s: ScenarioCluster, name: string, type: string, data: Record<string, string>) =>
      s.server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'partners' }, type, data });
    /** Whether the cluster is healthy after `fix`, and the rule's condition holds. */
    const healthyAfter = async (fix: (s: ScenarioCluster) => void) => {
      const s = await start();
      fix(s);
      const healthy = s.health().healthy;
      expect(podPulls(s.server, 'partners', deployment(s).spec.template.spec)).to.equal(healthy);
      return healthy;
    };

    it('broken: the pull is anonymous (401), ErrImagePull then ImagePullBackOff, and the kubelet warns that registry-cred does not exist', async () => {
      const s = await start();
      const [pod] = objects(s, 'Pod');
      expect(pod.status.containerStatuses[0].state.waiting.reason).to.be.oneOf(['ErrImagePull', 'ImagePullBackOff']);
      const messages = objects(s, 'Event').map((e) => `${e.reason}: ${e.message}`);
      expect(messages.some((m) => m.startsWith('Failed: Failed to pull image') && m.includes('401 Unauthorized'))).to.equal(true);
      expect(messages).to.include(
        'FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets (registry-cred); attempting to pull the image may not succeed.',
      );
      expect(s.health().healthy).to.equal(false);
    });

    it("passes the transcript's fix (regcred instead) and other valid fixes: both secrets, the service account's, a renamed or dockercfg copy", async () => {
      expect(await healthyAfter((s) => changeTemplate(s, (p) => (p.imagePullSecrets = [{ name: 'regcred' }])))).to.equal(true);
      expect(await healthyAfter((s) => changeTemplate(s, (p) => p.imagePullSecrets.push({ name: 'regcred' })))).to.equal(true);
      const viaServiceAccount = (s: ScenarioCluster) => {
        s.server.create({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'feed', namespace: 'partners' },
          imagePullSecrets: [{ name: 'regcred' }],
        });
        changeTemplate(s, (p) => {
          delete p.imagePullSecrets;
          p.serviceAccountName = 'feed';
        });
      };
      expect(await healthyAfter(viaServiceAccount)).to.equal(true);
      const dockercfg = (s: ScenarioCluster) => {
        const auths = Buffer.from(JSON.stringify({ 'https://registry.example/v2/': { auth: 'eDp5' } })).toString('base64');
        addSecret(s, 'registry-cred', 'kubernetes.io/dockercfg', { '.dockercfg': auths });
      };
      expect(await healthyAfter(dockercfg)).to.equal(true);
    });

    it('fails the wrong fixes: a restart, more memory, no pull secret, the secret of another registry, an Opaque copy, a service account the pod does not read', async () => {
      const restart = (s: ScenarioCluster) => objects(s, 'Pod').forEach((p) => s.server.remove(p));
      expect(await healthyAfter(restart)).to.equal(false);
      expect(await healthyAfter((s) => changeTemplate(s, (p) => (p.containers[0].resources = { limits: { memory: '1Gi' } })))).to.equal(false);
      expect(await healthyAfter((s) => changeTemplate(s, (p) => delete p.imagePullSecrets))).to.equal(false);
      expect(await healthyAfter((s) => changeTemplate(s, (p) => (p.imagePullSecrets = [{ name: 'ghcr-cred' }])))).to.equal(false);
      const opaque = (s: ScenarioCluster) =>
        addSecret(s, 'registry-cred', 'Opaque', { '.dockerconfigjson': dockerConfig({ 'registry.example': { auth: 'eDp5' } }) });
      expect(await healthyAfter(opaque)).to.equal(false);
      // the pod names a pull secret of its own, so admission never adds the service account's
      const ignoredAccount = (s: ScenarioCluster) =>
        s.server.create({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'default', namespace: 'partners' },
          imagePullSecrets: [{ name: 'regcred' }],
        });
      expect(await healthyAfter(ignoredAccount)).to.equal(false);
    });
  });
});
