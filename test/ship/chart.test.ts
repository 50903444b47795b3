import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { loadConfig } from '../../infrastructure/config/config.js';
import { projectRoot } from '../../infrastructure/project-root.js';
import { parseDockerfile } from './dockerfile-parser.js';
import { TemplateError, TemplateSet } from './go-template.js';
import { renderChart, type Manifest } from './helm-chart.js';
import { KUBE_SCHEMAS, validate } from './kube-schemas.js';

const root = projectRoot();
const CHART = path.join(root, 'charts', 'svc');

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } };
type Rule = { apiGroups?: string[]; resources?: string[]; nonResourceURLs?: string[]; verbs: string[] };
type Container = {
  env: Env[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown> & { capabilities: { drop: string[] } };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
};
type PodSpec = {
  serviceAccountName: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }[];
};

const find = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);
const one = (objects: Manifest[], kind: string) => {
  const found = find(objects, kind);
  expect(found, kind).to.have.length(1);
  return found[0];
};
const podSpec = (objects: Manifest[]) => (one(objects, 'Deployment') as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
const container = (objects: Manifest[]) => podSpec(objects).containers[0];
const envOf = (objects: Manifest[]) => Object.fromEntries(container(objects).env.map((e) => [e.name, e]));
const plainEnv = (objects: Manifest[]) =>
  Object.fromEntries(
    container(objects)
      .env.filter((e) => e.value !== undefined)
      .map((e) => [e.name, e.value!]),
  );
const rules = (objects: Manifest[]) => (one(objects, 'ClusterRole') as unknown as { rules: Rule[] }).rules;
const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection', 'escalate', 'bind', 'impersonate', '*'];
const SECRET_ENV = ['SVC_AUTH_TOKEN', 'SVC_GIT_TOKEN', 'OPENAI_API_KEY', 'QDRANT_API_KEY', 'SVC_LEDGER_KEY', 'SVC_LEDGER_KEY_PREVIOUS'];

/** The message of a render that must fail (the chart's `fail`). */
function fails(values: Record<string, unknown>): string {
  try {
    renderChart(CHART, values);
  } catch (e) {
    expect(e).to.be.instanceOf(TemplateError);
    return (e as Error).message;
  }
  throw new Error('rendered without failing');
}

function schemaErrors(objects: Manifest[]): string[] {
  return objects.flatMap((o) => {
    const schema = KUBE_SCHEMAS[`${o.apiVersion}/${o.kind}`];
    if (!schema) return [`no schema for ${o.apiVersion} ${o.kind}`];
    return validate(schema, o).map((e) => `${o.kind}/${o.metadata.name}${e}`);
  });
}

/** The environment svc would see: plain values with `$(NAME)` of earlier entries expanded as the kubelet does, each secret reference filled with a stand-in, the pod's namespace as `tools`. */
function environment(objects: Manifest[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container(objects).env) {
    if (e.valueFrom?.fieldRef) {
      expect(e.valueFrom.fieldRef.fieldPath).to.equal('metadata.namespace');
      env[e.name] = 'tools';
      continue;
    }
    env[e.name] =
      e.value !== undefined
        ? e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string) => env[name] ?? m)
        : `secret-${e.valueFrom!.secretKeyRef!.name}-${e.valueFrom!.secretKeyRef!.key}-padding`;
  }
  return env;
}

const OVERRIDES = {
  image: { repository: 'registry.example/platform/svc', tag: '1.2.3' },
  rbac: { write: true },
  secrets: {
    authToken: { name: 'svc-bearer', key: 'token' },
    gitToken: { name: 'svc-git', key: 'token' },
    openaiApiKey: { name: 'llm', key: 'api-key' },
    qdrantApiKey: { name: 'qdrant-auth', key: 'api-key' },
    ledgerKey: { name: 'svc-ledger-hmac', key: 'current-key' },
    ledgerKeyPrevious: { name: 'svc-ledger-hmac', key: 'previous-key' },
  },
  prompts: {
    repo: 'https://github.com/acme/prompts.git',
    path: 'team/sre',
    branch: 'release/2',
    cacheTtlSeconds: 600,
    internalHosts: ['git.corp.example', 'gitea.tools'],
  },
  gitops: { allowedRepoHosts: ['github.com', 'git.corp.example'] },
  qdrant: { enabled: true },
  llm: { baseUrl: 'http://vllm.ai:8000/v1', model: 'qwen3-32b', structuredOutput: 'json_object', embeddingsModel: 'bge-small' },
  tracing: {
    enabled: true,
    serviceName: 'svc-prod',
    exporterType: 'otlp',
    otlpEndpoint: 'http://otel-collector.obs:4318',
    samplingProbability: '0.25',
    debug: false,
  },
  persistence: { enabled: true, size: '20Gi', storageClass: 'fast' },
  extraEnv: [{ name: 'SVC_KUBE_TIMEOUT_MS', value: '15000' }],
  podAnnotations: { 'prometheus.io/scrape': 'false' },
  resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
};

const REPLICAS = {
  replicaCount: 3,
  redis: { existingSecret: { name: 'svc-redis', key: 'url' }, prefix: 'prod:', sourcesTtlSeconds: 3600 },
  vector: { qdrantUrl: 'http://qdrant.data:6333' },
  rateLimit: { windowSeconds: 30, ai: 40, other: 2000 },
};

describe('Helm chart charts/svc (rendered without helm or a cluster)', () => {
  describe('the template renderer the checks rely on', () => {
    const render = (src: string, data: unknown, defines = '') => {
      const set = new TemplateSet();
      set.add('_h.tpl', defines);
      set.add('t.yaml', src);
      return set.render('t.yaml', data);
    };

    it('trims, branches, scopes with `with`, ranges and includes as Go templates do', () => {
      expect(render('a:\n  {{- if .x }} yes{{ else if .y }} maybe{{ else }} no{{ end }}\n', { x: 0, y: '' })).to.equal('a: no\n');
      expect(render('{{ with .m }}{{ .k | quote }}{{ end }}|{{ range .l }}[{{ . }}]{{ end }}', { m: { k: 'v' }, l: [1, 2] })).to.equal('"v"|[1][2]');
      expect(render('x:{{- include "h" (dict "n" 3) | nindent 2 }}', {}, '{{- define "h" -}}\nn: {{ .n }}\n{{- end -}}')).to.equal('x:\n  n: 3');
      expect(render('{{ toYaml .v }}', { v: { b: [1], a: 'x' } })).to.equal('a: x\nb:\n  - 1');
      expect(render('{{ default "d" .e }} {{ join "," .l }} {{ printf "%s-%s" "a" "b" | trunc 2 }}', { e: '', l: ['p', 'q'] })).to.equal('d p,q a-');
    });

    it('fails on a field that is not in the values, and on unsupported syntax', () => {
      expect(() => render('{{ .Values.nope.deeper }}', { Values: {} })).to.throw(TemplateError, '.Values.nope is not defined');
      expect(() => render('{{ lookup "v1" "Secret" "ns" "x" }}', {})).to.throw(TemplateError, 'function lookup is not supported');
      expect(() => render('{{ if .a }}open', { a: 1 })).to.throw(TemplateError, 'missing {{ end }}');
    });
  });

  describe('default values', () => {
    const { objects } = renderChart(CHART);

    it('renders a Deployment, a Service, a ServiceAccount and the cluster RBAC, no claim', () => {
      expect(objects.map((o) => o.kind).sort()).to.deep.equal(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service', 'ServiceAccount']);
      for (const o of objects.filter((x) => !x.kind.startsWith('Cluster'))) expect(o.metadata.namespace, o.kind).to.equal('tools');
    });

    it('every object is valid against the Kubernetes schemas of its kind', () => {
      expect(schemaErrors(objects)).to.deep.equal([]);
    });

    it('the schema check catches a misspelt field, a wrong type and a bad enum', () => {
      const broken = JSON.parse(JSON.stringify(one(objects, 'Deployment'))) as {
        spec: { replicas: unknown; template: { spec: { containers: Record<string, unknown>[] } } };
      };
      broken.spec.replicas = '1';
      const c = broken.spec.template.spec.containers[0];
      c.readinessprobe = c.readinessProbe;
      c.imagePullPolicy = 'Sometimes';
      expect(schemaErrors([broken as unknown as Manifest])).to.deep.equal([
        'Deployment/rel-svc.spec.replicas: expected integer, got string ("1")',
        'Deployment/rel-svc.spec.template.spec.containers[0].imagePullPolicy: "Sometimes" is not one of ["Always","IfNotPresent","Never"]',
        'Deployment/rel-svc.spec.template.spec.containers[0]: unknown field "readinessprobe"',
      ]);
    });

    it('probes liveness and readiness on /healthz (never /readyz), on the named port 3456', () => {
      const c = container(objects);
      expect(c.ports).to.deep.equal([{ name: 'http', containerPort: 3456, protocol: 'TCP' }]);
      expect(c.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      const service = one(objects, 'Service') as unknown as { spec: { ports: { port: number; targetPort: string }[]; selector: object } };
      expect(service.spec.ports[0]).to.include({ port: 3456, targetPort: 'http' });
      expect(service.spec.selector).to.deep.equal(
        (one(objects, 'Deployment') as unknown as { spec: { selector: { matchLabels: object } } }).spec.selector.matchLabels,
      );
    });

    it('maps the environment: 0.0.0.0:3456, /data, github.com allowlist, bearer from a Secret, nothing else set', () => {
      expect(plainEnv(objects)).to.deep.equal({
        HOST: '0.0.0.0',
        PORT: '3456',
        SVC_DATA_DIR: '/data',
        LOG_LEVEL: 'info',
        SVC_SHUTDOWN_GRACE_MS: '10000',
        SVC_ALLOWED_REPO_HOSTS: 'github.com,www.github.com',
        SVC_RATE_LIMIT_ENABLED: 'true',
        OTEL_TRACING_ENABLED: 'false',
      });
      expect(envOf(objects).SVC_AUTH_TOKEN.valueFrom).to.deep.equal({ secretKeyRef: { name: 'rel-svc-auth', key: 'SVC_AUTH_TOKEN' } });
      for (const name of ['SVC_GIT_TOKEN', 'OPENAI_API_KEY', 'QDRANT_API_KEY', 'QDRANT_URL', 'SVC_USER_PROMPTS_REPO', 'REDIS_URL', 'SVC_REDIS_PREFIX'])
        expect(envOf(objects)).to.not.have.property(name);
      expect(find(objects, 'PodDisruptionBudget')).to.deep.equal([]);
      expect(podSpec(objects)).to.not.have.property('topologySpreadConstraints');
    });

    it('is read-only by default: get/list on resources, get on pods/log, list on events, no Secrets, no write verb', () => {
      const r = rules(objects);
      const verbs = new Set(r.flatMap((x) => x.verbs));
      expect([...verbs].sort()).to.deep.equal(['get', 'list']);
      expect(r.flatMap((x) => x.resources ?? [])).to.not.include.members(['secrets', '*']);
      expect(r.find((x) => x.resources?.includes('pods/log'))!.verbs).to.deep.equal(['get']);
      expect(r.filter((x) => x.resources?.includes('events')).map((x) => x.verbs)).to.deep.equal([['list'], ['list']]);
      expect(r.find((x) => x.apiGroups?.includes('apps'))!.resources).to.include.members(['deployments', 'replicasets', 'statefulsets', 'daemonsets']);
      for (const rule of r) expect(rule.apiGroups ?? []).to.not.include('*');
      const binding = one(objects, 'ClusterRoleBinding') as unknown as {
        roleRef: { name: string };
        subjects: { kind: string; name: string; namespace: string }[];
      };
      expect(binding.roleRef.name).to.equal(one(objects, 'ClusterRole').metadata.name);
      expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'rel-svc', namespace: 'tools' }]);
      expect(podSpec(objects).serviceAccountName).to.equal(one(objects, 'ServiceAccount').metadata.name);
    });

    it('locks the container down: non-root (the image user), read-only root, no escalation, no capabilities, RuntimeDefault seccomp', () => {
      const pod = podSpec(objects);
      const c = container(objects);
      expect(pod.securityContext).to.deep.include({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(c.securityContext).to.deep.include({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, privileged: false });
      expect(c.securityContext.capabilities.drop).to.deep.equal(['ALL']);
      expect(c.securityContext.seccompProfile).to.deep.equal({ type: 'RuntimeDefault' });
      const dockerUser = parseDockerfile(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))
        .stages.at(-1)!
        .instructions.find((i) => i.keyword === 'USER')!.args;
      expect(dockerUser).to.equal(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
    });

    it('gives the read-only root two writable volumes: /data (emptyDir by default) and /tmp', () => {
      const c = container(objects);
      expect(c.volumeMounts).to.deep.equal([
        { name: 'data', mountPath: '/data' },
        { name: 'tmp', mountPath: '/tmp' },
      ]);
      expect(podSpec(objects).volumes).to.deep.equal([
        { name: 'data', emptyDir: { sizeLimit: '2Gi' } },
        { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
      ]);
      expect(c.resources.requests).to.deep.equal({ cpu: '100m', memory: '256Mi' });
      expect(c.resources.limits).to.deep.equal({ memory: '1Gi' });
    });

    it("starts svc: the rendered environment passes svc's own configuration parsing", () => {
      const config = loadConfig(environment(objects), '/');
      expect(config.server.host).to.equal('0.0.0.0');
      expect(config.server.port).to.equal(3456);
      expect(config.prompts.allowedRepoHosts).to.deep.equal(['github.com', 'www.github.com']);
      // the pod's namespace from the downward API: svc's own, whose objects are high risk and never written automatically
      expect(config.writes.ownNamespace).to.equal('tools');
    });
  });

  describe('a values override', () => {
    const { objects } = renderChart(CHART, OVERRIDES, { Name: 'prod', Namespace: 'platform' });

    it('still renders valid objects, now with a claim', () => {
      expect(objects.map((o) => o.kind).sort()).to.deep.equal([
        'ClusterRole',
        'ClusterRoleBinding',
        'Deployment',
        'PersistentVolumeClaim',
        'Service',
        'ServiceAccount',
      ]);
      expect(schemaErrors(objects)).to.deep.equal([]);
    });

    it('references each credential by Secret name and key, never as a value', () => {
      const env = envOf(objects);
      expect(env.SVC_AUTH_TOKEN.valueFrom!.secretKeyRef).to.deep.equal({ name: 'svc-bearer', key: 'token' });
      expect(env.SVC_GIT_TOKEN.valueFrom!.secretKeyRef).to.deep.equal({ name: 'svc-git', key: 'token' });
      expect(env.OPENAI_API_KEY.valueFrom!.secretKeyRef).to.deep.equal({ name: 'llm', key: 'api-key' });
      expect(env.QDRANT_API_KEY.valueFrom!.secretKeyRef).to.deep.equal({ name: 'qdrant-auth', key: 'api-key' });
      expect(env.SVC_LEDGER_KEY.valueFrom!.secretKeyRef).to.deep.equal({ name: 'svc-ledger-hmac', key: 'current-key' });
      expect(env.SVC_LEDGER_KEY_PREVIOUS.valueFrom!.secretKeyRef).to.deep.equal({ name: 'svc-ledger-hmac', key: 'previous-key' });
      for (const name of SECRET_ENV) expect(env[name].value, name).to.equal(undefined);
    });

    it("maps prompts, hosts, Qdrant, model and tracing values to svc's variables", () => {
      expect(plainEnv(objects)).to.deep.include({
        SVC_USER_PROMPTS_REPO: 'https://github.com/acme/prompts.git',
        SVC_USER_PROMPTS_PATH: 'team/sre',
        SVC_USER_PROMPTS_BRANCH: 'release/2',
        SVC_USER_PROMPTS_CACHE_TTL: '600',
        SVC_ALLOWED_REPO_HOSTS: 'github.com,git.corp.example',
        SVC_REPO_INTERNAL_HOSTS: 'git.corp.example,gitea.tools',
        QDRANT_URL: 'http://prod-qdrant:6333',
        OPENAI_BASE_URL: 'http://vllm.ai:8000/v1',
        SVC_LLM_MODEL: 'qwen3-32b',
        SVC_LLM_STRUCTURED_OUTPUT: 'json_object',
        SVC_EMBEDDINGS_MODEL: 'bge-small',
        OTEL_TRACING_ENABLED: 'true',
        OTEL_SERVICE_NAME: 'svc-prod',
        OTEL_EXPORTER_TYPE: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.obs:4318',
        OTEL_SAMPLING_PROBABILITY: '0.25',
        OTEL_DEBUG: 'false',
        SVC_KUBE_TIMEOUT_MS: '15000',
      });
      const config = loadConfig(environment(objects), '/');
      expect(config.prompts.configuredRepo).to.include({ host: 'github.com', subPath: 'team/sre', branch: 'release/2' });
      expect(config.prompts.repoInternalHosts).to.deep.equal(['git.corp.example', 'gitea.tools']);
      const explicit = renderChart(CHART, { ...OVERRIDES, vector: { qdrantUrl: 'https://qdrant.data:6333' } }).objects;
      expect(plainEnv(explicit).QDRANT_URL).to.equal('https://qdrant.data:6333');
    });

    it('adds exactly create, patch and delete on the workload kinds with rbac.write, and still no Secrets', () => {
      const r = rules(objects);
      const writes = r.filter((x) => x.verbs.some((v) => WRITE_VERBS.includes(v)));
      for (const w of writes) expect(w.verbs).to.deep.equal(['create', 'patch', 'delete']);
      const writable = writes.flatMap((w) => (w.apiGroups ?? []).flatMap((g) => (w.resources ?? []).map((res) => `${g}/${res}`)));
      expect(writable).to.include.members(['apps/deployments', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', '/services', '/configmaps']);
      expect(writable.filter((x) => /secrets|roles|rolebindings|namespaces|nodes|customresourcedefinitions/.test(x))).to.deep.equal([]);
      expect(r.flatMap((x) => x.resources ?? [])).to.not.include('secrets');
    });

    it('grants impersonate on users and groups, and sets SVC_KUBE_IMPERSONATE, only with kube.impersonate', () => {
      const impersonating = (o: Manifest[]) => rules(o).filter((x) => x.verbs.includes('impersonate'));
      expect(impersonating(objects)).to.deep.equal([]);
      expect(impersonating(renderChart(CHART).objects)).to.deep.equal([]);
      expect(plainEnv(objects)).to.not.have.property('SVC_KUBE_IMPERSONATE');
      const on = renderChart(CHART, { ...OVERRIDES, kube: { impersonate: true } }).objects;
      expect(schemaErrors(on)).to.deep.equal([]);
      expect(impersonating(on)).to.deep.equal([{ apiGroups: [''], resources: ['users', 'groups'], verbs: ['impersonate'] }]);
      // the rest of the role is as without it: impersonation adds a grant, it takes none away
      expect(rules(on).filter((x) => !x.verbs.includes('impersonate'))).to.deep.equal(rules(objects));
      expect(plainEnv(on).SVC_KUBE_IMPERSONATE).to.equal('true');
      expect(loadConfig(environment(on), '/').cluster.impersonate).to.equal(true);
      expect(loadConfig(environment(objects), '/').cluster.impersonate).to.equal(false);
    });

    it('keeps data on a claim, one pod at a time (Recreate), and sets the image and resources', () => {
      const deployment = one(objects, 'Deployment') as unknown as { spec: { strategy: { type: string }; template: { metadata: { annotations: object } } } };
      expect(deployment.spec.strategy).to.deep.equal({ type: 'Recreate' });
      expect(deployment.spec.template.metadata.annotations).to.deep.equal({ 'prometheus.io/scrape': 'false' });
      expect(podSpec(objects).volumes[0]).to.deep.equal({ name: 'data', persistentVolumeClaim: { claimName: 'prod-svc-data' } });
      const claim = one(objects, 'PersistentVolumeClaim') as unknown as {
        metadata: { name: string };
        spec: { storageClassName: string; resources: { requests: { storage: string } } };
      };
      expect(claim.metadata.name).to.equal('prod-svc-data');
      expect(claim.spec).to.deep.include({ storageClassName: 'fast', resources: { requests: { storage: '20Gi' } } });
      expect((podSpec(objects).containers[0] as unknown as { image: string }).image).to.equal('registry.example/platform/svc:1.2.3');
      expect(container(objects).resources).to.deep.equal({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } });
    });

    it('runs open only when asked, and can use an existing service account and claim', () => {
      const open = renderChart(CHART, {
        auth: { allowUnauthenticated: true },
        serviceAccount: { create: false, name: 'shared' },
        persistence: { enabled: true, existingClaim: 'svc-data' },
      }).objects;
      expect(envOf(open)).to.not.have.property('SVC_AUTH_TOKEN');
      expect(plainEnv(open).SVC_ALLOW_UNAUTHENTICATED).to.equal('true');
      expect(find(open, 'ServiceAccount')).to.deep.equal([]);
      expect(find(open, 'PersistentVolumeClaim')).to.deep.equal([]);
      expect(podSpec(open).serviceAccountName).to.equal('shared');
      expect(podSpec(open).volumes[0]).to.deep.equal({ name: 'data', persistentVolumeClaim: { claimName: 'svc-data' } });
      expect(schemaErrors(open)).to.deep.equal([]);
    });
  });

  describe('several replicas', () => {
    it('refuses replicaCount above 1 without Redis, without Qdrant, or with a ReadWriteOnce claim, saying what to set', () => {
      expect(fails({ replicaCount: 3 })).to.equal(
        'fail: replicaCount 3 needs shared state: set redis.existingSecret.name, redis.url or redis.enabled (otherwise each replica keeps its own sessions, uploaded sources, rate-limit counters and scan lease)',
      );
      expect(fails({ replicaCount: 2, redis: { url: 'redis://redis.data:6379/0' } })).to.equal(
        'fail: replicaCount 2 needs one vector store: set vector.qdrantUrl or qdrant.enabled (otherwise each replica keeps its own embedded vectors)',
      );
      expect(fails({ replicaCount: 2, qdrant: { enabled: true } })).to.match(/^fail: replicaCount 2 needs shared state/);
      expect(fails({ ...REPLICAS, persistence: { enabled: true } })).to.match(
        /^fail: replicaCount 3 with persistence\.enabled needs persistence\.accessModes \[ReadWriteMany\]/,
      );
      expect(renderChart(CHART, { ...REPLICAS, persistence: { enabled: true, accessModes: ['ReadWriteMany'] } }).objects.map((o) => o.kind)).to.include(
        'PersistentVolumeClaim',
      );
      expect(() => renderChart(CHART, { replicaCount: 'three' })).to.throw(TemplateError, 'int cannot convert "three"');
    });

    const { objects } = renderChart(CHART, REPLICAS, { Name: 'prod', Namespace: 'platform' });

    it('renders valid objects with a PodDisruptionBudget (one pod down at a time) over the pods of the Deployment', () => {
      expect(objects.map((o) => o.kind).sort()).to.deep.equal([
        'ClusterRole',
        'ClusterRoleBinding',
        'Deployment',
        'PodDisruptionBudget',
        'Service',
        'ServiceAccount',
      ]);
      expect(schemaErrors(objects)).to.deep.equal([]);
      const deployment = one(objects, 'Deployment') as unknown as { spec: { replicas: number; selector: { matchLabels: object } } };
      expect(deployment.spec.replicas).to.equal(3);
      const pdb = one(objects, 'PodDisruptionBudget') as unknown as { metadata: { namespace: string }; spec: object };
      expect(pdb.metadata.namespace).to.equal('platform');
      expect(pdb.spec).to.deep.equal({ maxUnavailable: 1, selector: { matchLabels: deployment.spec.selector.matchLabels } });
      expect(find(renderChart(CHART, { ...REPLICAS, podDisruptionBudget: { enabled: false } }).objects, 'PodDisruptionBudget')).to.deep.equal([]);
    });

    it('spreads the pods over zones and nodes by default, or as the values say', () => {
      const selector = (one(objects, 'Deployment') as unknown as { spec: { selector: { matchLabels: object } } }).spec.selector.matchLabels;
      expect((podSpec(objects) as unknown as { topologySpreadConstraints: unknown[] }).topologySpreadConstraints).to.deep.equal([
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } },
      ]);
      const own = [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { team: 'sre' } } }];
      const custom = renderChart(CHART, { ...REPLICAS, topologySpreadConstraints: own }).objects;
      expect((podSpec(custom) as unknown as { topologySpreadConstraints: unknown[] }).topologySpreadConstraints).to.deep.equal(own);
      expect(schemaErrors(custom)).to.deep.equal([]);
    });

    it('takes REDIS_URL from an existing Secret, maps the prefix, the sources TTL and the rate limits, and svc parses them', () => {
      const env = envOf(objects);
      expect(env.REDIS_URL.valueFrom!.secretKeyRef).to.deep.equal({ name: 'svc-redis', key: 'url' });
      expect(env.REDIS_URL.value).to.equal(undefined);
      expect(plainEnv(objects)).to.deep.include({
        SVC_REDIS_PREFIX: 'prod:',
        SVC_SOURCES_TTL: '3600',
        QDRANT_URL: 'http://qdrant.data:6333',
        SVC_RATE_LIMIT_ENABLED: 'true',
        SVC_RATE_LIMIT_WINDOW_S: '30',
        SVC_RATE_LIMIT_AI: '40',
        SVC_RATE_LIMIT_OTHER: '2000',
      });
      const config = loadConfig({ ...environment(objects), REDIS_URL: 'rediss://:pass-from-secret@redis.data:6380/1' }, '/');
      expect(config.redis).to.deep.equal({ url: 'rediss://:pass-from-secret@redis.data:6380/1', prefix: 'prod:' });
      expect(config.uploads.ttlSeconds).to.equal(3600);
      expect(config.rateLimit).to.deep.include({ enabled: true, windowMs: 30000, aiPerWindow: 40, otherPerWindow: 2000 });
    });

    it("uses a plain redis.url, or the Redis installed with the chart with its password from that chart's Secret", () => {
      const plain = renderChart(CHART, { replicaCount: 2, redis: { url: 'redis://valkey.data:6379/0' }, qdrant: { enabled: true } }).objects;
      expect(plainEnv(plain)).to.deep.include({ REDIS_URL: 'redis://valkey.data:6379/0', QDRANT_URL: 'http://rel-qdrant:6333' });
      const bundled = renderChart(CHART, { replicaCount: 2, redis: { enabled: true }, qdrant: { enabled: true } }).objects;
      const env = envOf(bundled);
      expect(env.REDIS_PASSWORD.valueFrom!.secretKeyRef).to.deep.equal({ name: 'rel-redis', key: 'redis-password' });
      const names = container(bundled).env.map((e) => e.name);
      expect(names.indexOf('REDIS_PASSWORD')).to.be.below(names.indexOf('REDIS_URL'));
      expect(env.REDIS_URL.value).to.equal('redis://:$(REDIS_PASSWORD)@rel-redis-master:6379/0');
      expect(loadConfig(environment(bundled), '/').redis.url).to.equal('redis://:secret-rel-redis-redis-password-padding@rel-redis-master:6379/0');
      const open = renderChart(CHART, { replicaCount: 2, redis: { enabled: true, auth: { enabled: false } }, qdrant: { enabled: true } }).objects;
      expect(plainEnv(open).REDIS_URL).to.equal('redis://rel-redis-master:6379/0');
      expect(envOf(open)).to.not.have.property('REDIS_PASSWORD');
      for (const o of [plain, bundled, open]) expect(schemaErrors(o)).to.deep.equal([]);
    });

    it('one replica with Redis: shared state without a PodDisruptionBudget or spread', () => {
      const single = renderChart(CHART, { redis: { url: 'redis://redis.data:6379/0' } }).objects;
      expect(plainEnv(single).REDIS_URL).to.equal('redis://redis.data:6379/0');
      expect(find(single, 'PodDisruptionBudget')).to.deep.equal([]);
      expect(podSpec(single)).to.not.have.property('topologySpreadConstraints');
    });
  });

  describe('metrics', () => {
    it('adds a ServiceMonitor only when asked: /metrics on the http port with the auth Secret as bearer, valid against its schema', () => {
      expect(find(renderChart(CHART).objects, 'ServiceMonitor')).to.deep.equal([]);
      const objects = renderChart(CHART, {
        secrets: { authToken: { name: 'svc-bearer', key: 'token' } },
        metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus' } } },
      }).objects;
      expect(schemaErrors(objects)).to.deep.equal([]);
      const monitor = one(objects, 'ServiceMonitor') as unknown as { metadata: { labels: Record<string, string> }; spec: Record<string, any> };
      expect(monitor.metadata.labels.release).to.equal('kube-prometheus');
      const service = one(objects, 'Service') as unknown as { spec: { selector: object; ports: { name: string }[] } };
      expect(monitor.spec.selector).to.deep.equal({ matchLabels: service.spec.selector });
      expect(service.spec.ports.map((p) => p.name)).to.include(monitor.spec.endpoints[0].port);
      expect(monitor.spec.endpoints[0]).to.deep.include({ path: '/metrics', interval: '30s' });
      expect(monitor.spec.endpoints[0].authorization).to.deep.equal({ type: 'Bearer', credentials: { name: 'svc-bearer', key: 'token' } });
      expect(envOf(objects)).to.not.have.property('SVC_METRICS_PUBLIC');
    });

    it('metrics.public sets SVC_METRICS_PUBLIC (svc parses it) and the ServiceMonitor then sends no token', () => {
      const objects = renderChart(CHART, { metrics: { public: true, serviceMonitor: { enabled: true } } }).objects;
      expect(plainEnv(objects).SVC_METRICS_PUBLIC).to.equal('true');
      expect(loadConfig(environment(objects), '/').server.metricsPublic).to.equal(true);
      const monitor = one(objects, 'ServiceMonitor') as unknown as { spec: { endpoints: Record<string, unknown>[] } };
      expect(monitor.spec.endpoints[0]).to.not.have.property('authorization');
    });
  });

  describe('model backends', () => {
    it('anthropic: the key from a Secret reference, the proxy URL and the provider, parsed by svc as anthropic', () => {
      const objects = renderChart(CHART, {
        secrets: { anthropicApiKey: { name: 'anthropic', key: 'key' } },
        llm: {
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          anthropic: { baseUrl: 'https://proxy.corp.example' },
          headersSecret: { name: 'llm-gw', key: 'headers' },
        },
      }).objects;
      const env = envOf(objects);
      expect(env.ANTHROPIC_API_KEY.valueFrom!.secretKeyRef).to.deep.equal({ name: 'anthropic', key: 'key' });
      expect(env.SVC_LLM_HEADERS.valueFrom!.secretKeyRef).to.deep.equal({ name: 'llm-gw', key: 'headers' });
      expect(env.ANTHROPIC_API_KEY.value).to.equal(undefined);
      expect(plainEnv(objects)).to.deep.include({
        SVC_LLM_PROVIDER: 'anthropic',
        ANTHROPIC_BASE_URL: 'https://proxy.corp.example',
        SVC_LLM_MODEL: 'claude-sonnet-4-5',
      });
      const config = loadConfig({ ...environment(objects), SVC_LLM_HEADERS: '{"X-Gateway-Key":"v"}' }, '/');
      expect(config.llm).to.deep.include({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
      expect(config.llm.anthropic).to.deep.include({ baseUrl: 'https://proxy.corp.example' });
    });

    it('bedrock with an IRSA annotation: the region, no AWS key anywhere, embeddings of their own', () => {
      const objects = renderChart(CHART, {
        serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/svc-bedrock' } },
        llm: { provider: 'bedrock', model: 'us.anthropic.claude-3-5-sonnet-20240620-v1:0', bedrock: { region: 'eu-west-1' } },
        embeddings: { provider: 'openai', baseUrl: 'http://tei.svc:8080/v1', model: 'bge-small-en-v1.5', dimensions: 384 },
      }).objects;
      const sa = one(objects, 'ServiceAccount') as unknown as { metadata: { annotations: Record<string, string> } };
      expect(sa.metadata.annotations).to.deep.equal({ 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/svc-bedrock' });
      const env = envOf(objects);
      for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'ANTHROPIC_API_KEY', 'SVC_EMBEDDINGS_API_KEY'])
        expect(env[name], name).to.equal(undefined);
      expect(plainEnv(objects)).to.deep.include({
        SVC_LLM_PROVIDER: 'bedrock',
        AWS_REGION: 'eu-west-1',
        SVC_EMBEDDINGS_BASE_URL: 'http://tei.svc:8080/v1',
        SVC_EMBEDDINGS_MODEL: 'bge-small-en-v1.5',
        SVC_EMBEDDINGS_DIMENSIONS: '384',
        SVC_EMBEDDINGS_PROVIDER: 'openai',
      });
      const config = loadConfig(environment(objects), '/');
      expect(config.llm.bedrock).to.deep.include({ region: 'eu-west-1', credentials: { kind: 'default-chain' } });
      expect(config.vector.embeddings).to.deep.equal({ kind: 'openai', baseURL: 'http://tei.svc:8080/v1', model: 'bge-small-en-v1.5', dimension: 384 });
    });

    it('refuses a provider without its settings, saying what to set', () => {
      expect(fails({ llm: { provider: 'anthropic', model: 'claude-x' } })).to.equal(
        'fail: llm.provider anthropic needs secrets.anthropicApiKey.name (a Secret holding ANTHROPIC_API_KEY) and llm.model',
      );
      expect(fails({ llm: { provider: 'bedrock', model: 'm' } })).to.match(/^fail: llm\.provider bedrock needs llm\.bedrock\.region/);
      expect(fails({ llm: { provider: 'bedrock', bedrock: { region: 'us-east-1' } } })).to.equal('fail: llm.provider bedrock needs llm.model (SVC_LLM_MODEL)');
    });
  });

  describe('chart metadata', () => {
    const chart = parse(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as {
      apiVersion: string;
      appVersion: string;
      dependencies?: { name: string; condition: string; repository: string }[];
    };
    const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as {
      qdrant: { enabled: boolean };
      redis: { enabled: boolean };
      gitops: { allowedRepoHosts: string[] };
      rbac: { write: boolean };
    };

    it('declares no dependency Helm would refuse: every dependency vendored under charts/ and locked (there are none); Qdrant and Redis are companion releases, off by default', () => {
      expect(chart.apiVersion).to.equal('v2');
      // Helm's rule (helm install/template: "found in Chart.yaml, but missing in charts/ directory"), whatever the
      // condition: each dependency needs a packaged chart of its name in charts/ and Chart.lock must match Chart.yaml
      const deps = chart.dependencies ?? [];
      const vendored = existsSync(path.join(CHART, 'charts')) ? readdirSync(path.join(CHART, 'charts')) : [];
      for (const d of deps)
        expect(
          vendored.some((f) => f.startsWith(`${d.name}-`) && f.endsWith('.tgz')),
          `${d.name} vendored`,
        ).to.equal(true);
      if (deps.length) expect(existsSync(path.join(CHART, 'Chart.lock')), 'Chart.lock').to.equal(true);
      expect(deps).to.deep.equal([]);
      expect(values.qdrant.enabled).to.equal(false);
      expect(values.redis.enabled).to.equal(false);
      expect(values.rbac.write).to.equal(false);
      expect(values.gitops.allowedRepoHosts).to.deep.equal(['github.com', 'www.github.com']);
      // the companions' names are the ones the chart reaches, and the docs install them under those names
      const deploying = readFileSync(path.join(root, 'docs', 'deploying.md'), 'utf8');
      expect(deploying).to.include('helm install svc-redis oci://registry-1.docker.io/bitnamicharts/redis');
      expect(deploying).to.include('helm install svc-qdrant qdrant/qdrant');
      const env = plainEnv(
        renderChart(CHART, { qdrant: { enabled: true }, redis: { enabled: true, auth: { enabled: false } } }, { Name: 'svc', Namespace: 'tools' }).objects,
      );
      expect(env.QDRANT_URL).to.equal('http://svc-qdrant:6333');
      expect(env.REDIS_URL).to.equal('redis://svc-redis-master:6379/0');
    });

    it('NOTES.txt says how to reach svc and read its token, and what is still to install or grant', () => {
      const plain = renderChart(CHART, {}, { Name: 'svc', Namespace: 'tools' }).notes ?? '';
      expect(plain).to.include('kubectl -n tools port-forward svc/svc 3456:3456');
      expect(plain).to.include("kubectl -n tools get secret svc-auth -o jsonpath='{.data.SVC_AUTH_TOKEN}' | base64 -d");
      expect(plain).to.include('rbac.write is false');
      expect(plain).to.not.include('helm install');
      const full =
        renderChart(CHART, { ...OVERRIDES, qdrant: { enabled: true }, redis: { enabled: true }, rbac: { write: true } }, { Name: 'prod', Namespace: 'ops' })
          .notes ?? '';
      expect(full).to.include('helm install prod-redis oci://registry-1.docker.io/bitnamicharts/redis -n ops');
      expect(full).to.include('helm install prod-qdrant qdrant/qdrant -n ops');
      expect(full).to.not.include('rbac.write is false');
      const open = renderChart(CHART, { auth: { allowUnauthenticated: true } }).notes ?? '';
      expect(open).to.include('WARNING: auth.allowUnauthenticated is true');
      expect(open).to.not.include('get secret');
    });

    it('follows the package version and sets only variables svc reads', () => {
      const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
      expect(chart.appVersion).to.equal(pkg.version);
      const configDir = path.join(root, 'infrastructure', 'config');
      const sources = readdirSync(configDir)
        .map((f) => readFileSync(path.join(configDir, f), 'utf8'))
        .join('\n');
      const rendered = [
        ...renderChart(CHART).objects,
        ...renderChart(CHART, OVERRIDES).objects,
        ...renderChart(CHART, REPLICAS).objects,
        ...renderChart(CHART, { ...REPLICAS, redis: { enabled: true } }).objects,
      ];
      const env = rendered.filter((o) => o.kind === 'Deployment').flatMap((o) => container([o]).env);
      // a variable only expanded into another value ($(REDIS_PASSWORD) in REDIS_URL) is for the kubelet, not svc
      const expanded = new Set(env.flatMap((e) => [...(e.value ?? '').matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)].map((m) => m[1])));
      expect([...expanded]).to.deep.equal(['REDIS_PASSWORD']);
      for (const name of new Set(env.map((e) => e.name))) if (!expanded.has(name)) expect(sources, name).to.contain(`'${name}'`);
    });
  });
});
