import { expect } from 'chai';
import { conditionHolds } from '../../domain/evaluation/field-condition.js';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { behaviourHolds, judgedOnCluster } from '../../lab/sandbox/behaviour-conditions.js';
import { acceptsFlags } from '../../lab/sandbox/behaviour-files.js';
import { claimBinds } from '../../lab/sandbox/kube/kube-claims.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { findObject } from '../../lab/sandbox/scenario-rules.js';

type Any = any;

/**
 * Each scenario's own rule, judged on its fixture after a change: the broken
 * state, the transcript's fix, other valid fixes and wrong ones.
 */
function judge(scenario: string): (change?: (objects: Fixture) => void) => boolean {
  const loaded = loadScenario(defaultScenariosDir(), scenario);
  const [rule] = loaded.scenario.cluster.rules;
  return (change) => {
    const objects = structuredClone(loaded.objects) as Obj[];
    change?.(fixture(objects));
    const c = new KubeCluster();
    for (const o of objects) c.put(o);
    return rule.healthyWhen.every((cond) => {
      const object = findObject(c, cond.object ?? rule.workload!);
      return judgedOnCluster(cond) ? behaviourHolds(c, cond, object, rule.container) : conditionHolds(cond, object);
    });
  };
}

/** The fixture's objects, with the workload's pod spec and first container at hand. */
interface Fixture {
  objects: Obj[];
  pod: Any;
  container: Any;
  find: (kind: string, name: string) => Any;
}
function fixture(objects: Obj[]): Fixture {
  const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
  return { objects, pod, container: pod.containers[0], find: (kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name) };
}

const claim = (name: string, namespace: string, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, ...spec },
});

describe('behaviour conditions on files, security context, claims and flags: every valid fix passes, the broken state and wrong fixes fail', () => {
  describe('file: the file the program reads exists, holding the source key', () => {
    it('haproxy.cfg from a ConfigMap item: the key fixed, a subPath mount or a copied key pass; a wrong item path, no items or other content fail', () => {
      const healthy = judge('config-configmap-item-key-missing');
      expect(healthy()).to.equal(false);
      expect(healthy((f) => (f.pod.volumes[0].configMap.items[0].key = 'haproxy-conf'))).to.equal(true);
      const subPath = (f: Fixture) => {
        delete f.pod.volumes[0].configMap.items;
        f.container.volumeMounts = [{ name: 'cfg', mountPath: '/usr/local/etc/haproxy/haproxy.cfg', subPath: 'haproxy-conf' }];
      };
      expect(healthy(subPath)).to.equal(true);
      const copyKey = (content: string) => (f: Fixture) => (f.find('ConfigMap', 'haproxy').data['haproxy-cfg'] = content);
      expect(healthy((f) => copyKey(f.find('ConfigMap', 'haproxy').data['haproxy-conf'])(f))).to.equal(true);
      // wrong: the key at another file name, every key by its own name, a placeholder, the mount made optional
      expect(healthy((f) => (f.pod.volumes[0].configMap.items[0] = { key: 'haproxy-conf', path: 'haproxy.conf' }))).to.equal(false);
      expect(healthy((f) => delete f.pod.volumes[0].configMap.items)).to.equal(false);
      expect(healthy(copyKey('global\n'))).to.equal(false);
      expect(healthy((f) => (f.pod.volumes[0].configMap.optional = true))).to.equal(false);
    });

    it('config.yaml at /etc/mailer: the mount moved, a subPath file or a projected volume pass; another file name or an emptyDir fail', () => {
      const healthy = judge('crash-config-mounted-wrong-path');
      expect(healthy()).to.equal(false);
      expect(healthy((f) => (f.container.volumeMounts[0].mountPath = '/etc/mailer'))).to.equal(true);
      expect(healthy((f) => f.container.volumeMounts.push({ name: 'config', mountPath: '/etc/mailer/config.yaml', subPath: 'config.yaml' }))).to.equal(true);
      const projected = (f: Fixture) => {
        f.pod.volumes = [{ name: 'mailer', projected: { sources: [{ configMap: { name: 'mailer-config' } }] } }];
        f.container.volumeMounts = [{ name: 'mailer', mountPath: '/etc/mailer/' }];
      };
      expect(healthy(projected)).to.equal(true);
      const renamed = (f: Fixture) => {
        f.pod.volumes[0].configMap.items = [{ key: 'config.yaml', path: 'mailer.yaml' }];
        f.container.volumeMounts[0].mountPath = '/etc/mailer';
      };
      expect(healthy(renamed)).to.equal(false);
      const empty = (f: Fixture) => {
        f.pod.volumes.push({ name: 'scratch', emptyDir: {} });
        f.container.volumeMounts.push({ name: 'scratch', mountPath: '/etc/mailer' });
      };
      expect(healthy(empty)).to.equal(false);
    });

    it('the files TLS_CERT_FILE and TLS_KEY_FILE name: repointed, relative to workingDir or the keys mapped to the old names pass; swapped or unmounted fail', () => {
      const healthy = judge('crash-tls-secret-key-names');
      const env = (cert: string, key: string) => (f: Fixture) => {
        f.container.env = [
          { name: 'TLS_CERT_FILE', value: cert },
          { name: 'TLS_KEY_FILE', value: key },
        ];
      };
      expect(healthy()).to.equal(false);
      expect(healthy(env('/tls/tls.crt', '/tls/tls.key'))).to.equal(true);
      expect(healthy((f) => (env('tls.crt', './tls.key')(f), (f.container.workingDir = '/tls')))).to.equal(true);
      const mapped = (f: Fixture) => {
        f.pod.volumes[0].secret.items = [
          { key: 'tls.crt', path: 'cert.pem' },
          { key: 'tls.key', path: 'key.pem' },
        ];
      };
      expect(healthy(mapped)).to.equal(true);
      expect(healthy(env('/tls/tls.key', '/tls/tls.crt'))).to.equal(false);
      expect(healthy((f) => (env('/tls/tls.crt', '/tls/tls.key')(f), (f.container.volumeMounts = [])))).to.equal(false);
      expect(healthy((f) => (env('/tls/tls.crt', '/tls/tls.key')(f), (f.pod.volumes[0].secret.secretName = 'missing')))).to.equal(false);
    });
  });

  describe('writable and effective: the process can write where it needs, the hardening kept', () => {
    it('a writable /tmp on a read-only root: an emptyDir of any name or TMPDIR on one pass; dropping the hardening or a read-only mount fail', () => {
      const healthy = judge('crash-readonly-rootfs-tmp');
      const emptyDir =
        (mountPath: string, name = 'tmp', extra: Obj = {}) =>
        (f: Fixture) => {
          f.pod.volumes = [...(f.pod.volumes ?? []), { name, emptyDir: { medium: 'Memory' } }];
          f.container.volumeMounts = [{ name, mountPath, ...extra }];
        };
      expect(healthy()).to.equal(false);
      expect(healthy(emptyDir('/tmp'))).to.equal(true);
      expect(healthy(emptyDir('/tmp', 'scratch'))).to.equal(true);
      expect(healthy((f) => (emptyDir('/scratch')(f), (f.container.env = [{ name: 'TMPDIR', value: '/scratch' }])))).to.equal(true);
      // wrong: the hardening dropped (by the container or left to a pod that never had it), a read-only mount, another dir
      expect(healthy((f) => (f.container.securityContext.readOnlyRootFilesystem = false))).to.equal(false);
      expect(healthy((f) => delete f.container.securityContext.readOnlyRootFilesystem)).to.equal(false);
      expect(healthy((f) => (emptyDir('/tmp')(f), delete f.container.securityContext.runAsNonRoot))).to.equal(false);
      expect(healthy(emptyDir('/tmp', 'tmp', { readOnly: true }))).to.equal(false);
      expect(healthy(emptyDir('/var/tmp'))).to.equal(false);
      expect(healthy((f) => (f.container.env = [{ name: 'TMPDIR', value: '/scratch' }]))).to.equal(false);
    });

    it('a claim the non-root process writes: any fsGroup passes; root, another volume or a read-only mount fail', () => {
      const healthy = judge('crash-volume-permission-fsgroup');
      expect(healthy()).to.equal(false);
      expect(healthy((f) => (f.pod.securityContext = { fsGroup: 1000 }))).to.equal(true);
      expect(healthy((f) => (f.pod.securityContext = { fsGroup: 2000, fsGroupChangePolicy: 'OnRootMismatch' }))).to.equal(true);
      // wrong: running as root (with or without the non-root check, which the kubelet refuses), an emptyDir, a read-only mount
      expect(healthy((f) => (f.container.securityContext = { runAsUser: 0 }))).to.equal(false);
      expect(healthy((f) => (f.container.securityContext.runAsUser = 0))).to.equal(false);
      expect(healthy((f) => (f.pod.volumes[0] = { name: 'data', emptyDir: {} }))).to.equal(false);
      expect(healthy((f) => ((f.pod.securityContext = { fsGroup: 1000 }), (f.container.volumeMounts[0].readOnly = true)))).to.equal(false);
    });

    it('runAsNonRoot merged from the pod and the container: either place passes; dropped, overridden or with uid 0 fails', () => {
      const healthy = judge('crash-runasnonroot-root-image');
      const image = (f: Fixture) => (f.container.image = 'nginxinc/nginx-unprivileged:1.27');
      expect(healthy()).to.equal(false);
      expect(healthy(image)).to.equal(true);
      expect(healthy((f) => (image(f), (f.pod.securityContext = { runAsNonRoot: true }), delete f.container.securityContext))).to.equal(true);
      expect(healthy((f) => (image(f), delete f.container.securityContext))).to.equal(false);
      expect(healthy((f) => (image(f), (f.pod.securityContext = { runAsNonRoot: true }), (f.container.securityContext.runAsNonRoot = false)))).to.equal(false);
      expect(healthy((f) => (image(f), (f.container.securityContext.runAsUser = 0)))).to.equal(false);
    });
  });

  describe('claims: the data path is a claim that binds', () => {
    it('wordpress-content at wp-content: by any volume name or a clone pass; a new empty claim, another app’s claim or a subPath fail', () => {
      const healthy = judge('pvc-claim-name-wrong');
      const mount = (claimName: string) => (f: Fixture) => (f.pod.volumes[0].persistentVolumeClaim.claimName = claimName);
      expect(healthy()).to.equal(false);
      expect(healthy(mount('wordpress-content'))).to.equal(true);
      const renamed = (f: Fixture) => {
        f.pod.volumes = [{ name: 'wp', persistentVolumeClaim: { claimName: 'wordpress-content' } }];
        f.container.volumeMounts = [{ name: 'wp', mountPath: '/var/www/html/wp-content' }];
      };
      expect(healthy(renamed)).to.equal(true);
      const clone = { dataSource: { kind: 'PersistentVolumeClaim', name: 'wordpress-content' } };
      expect(healthy((f) => f.objects.push(claim('wp-content', 'cms', clone)))).to.equal(true);
      expect(healthy((f) => f.objects.push(claim('wp-content', 'cms')))).to.equal(false);
      expect(healthy((f) => (f.objects.push(claim('blog-content', 'cms')), mount('blog-content')(f)))).to.equal(false);
      expect(healthy((f) => (mount('wordpress-content')(f), (f.container.volumeMounts[0].subPath = 'wp')))).to.equal(false);
    });

    it('a claim of a class the cluster has at /var/exports: any name, the default class pass; the missing class again, an emptyDir or a missing claim fail', () => {
      const healthy = judge('pvc-storageclass-not-found');
      const newClaim = (name: string, spec: Obj) => (f: Fixture) => {
        f.objects.push(claim(name, 'reporting', spec));
        f.pod.volumes[0].persistentVolumeClaim.claimName = name;
      };
      expect(healthy()).to.equal(false);
      expect(healthy(newClaim('exports-standard', { storageClassName: 'standard' }))).to.equal(true);
      expect(healthy(newClaim('exports-v2', {}))).to.equal(true);
      expect(healthy(newClaim('exports-v2', { storageClassName: 'fast-ssd' }))).to.equal(false);
      expect(healthy((f) => (f.pod.volumes[0] = { name: 'data', emptyDir: {} }))).to.equal(false);
      expect(healthy((f) => (f.pod.volumes[0].persistentVolumeClaim.claimName = 'exports-standard'))).to.equal(false);
    });

    it('the sandbox binds a claim only when its class exists: Pending with ProvisioningFailed, Bound once the class appears', () => {
      const c = new KubeCluster();
      const isDefault = { 'storageclass.kubernetes.io/is-default-class': 'true' };
      c.put({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'standard', annotations: isDefault }, provisioner: 'x' });
      const pending = c.create(claim('fast', 'shop', { storageClassName: 'fast-ssd' }));
      const bound = c.create(claim('plain', 'shop'));
      expect(bound.status.phase).to.equal('Bound');
      expect(pending.status.phase).to.equal('Pending');
      expect(claimBinds(c, pending)).to.equal(false);
      const failed = [...c.objects.values()].find((o) => o.kind === 'Event' && o.reason === 'ProvisioningFailed');
      expect(failed?.message).to.equal('storageclass.storage.k8s.io "fast-ssd" not found');
      c.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast-ssd' }, provisioner: 'x' });
      expect(pending.status.phase).to.equal('Bound');
      // a claim without a class takes the default; with no default class it waits
      delete c.objects.get(c.pathOf('storage.k8s.io/v1', 'StorageClass', 'standard'))!.metadata.annotations;
      expect(c.create(claim('no-default', 'shop')).status.phase).to.equal('Pending');
      // without any StorageClass object the sandbox's implicit default is standard
      const bare = new KubeCluster();
      expect(bare.create(claim('a', 'shop')).spec.storageClassName).to.equal('standard');
      expect(bare.create(claim('b', 'shop', { storageClassName: 'gold' })).status.phase).to.equal('Pending');
    });
  });

  describe('env and accepts: what the program is given', () => {
    it('PORT without the newline: the ConfigMap fixed or a literal pass; another value fails', () => {
      const healthy = judge('config-value-trailing-newline');
      expect(healthy()).to.equal(false);
      expect(healthy((f) => (f.find('ConfigMap', 'pricing-config').data.port = '8080'))).to.equal(true);
      expect(healthy((f) => (f.container.env = [{ name: 'PORT', value: '8080' }]))).to.equal(true);
      expect(healthy((f) => (f.find('ConfigMap', 'pricing-config').data.port = '8080 '))).to.equal(false);
    });

    it('the flags edge-router knows, in either form, the misspelt one fixed or dropped; an unknown flag, a missing value or upstream fail', () => {
      const healthy = judge('crash-unknown-flag');
      const args =
        (...a: string[]) =>
        (f: Fixture) =>
          (f.container.args = a);
      const upstream = '--upstream=http://backend.gateway.svc:80';
      expect(healthy()).to.equal(false);
      expect(healthy(args('--listen-address=:8080', upstream))).to.equal(true);
      expect(healthy(args('--listen-address', ':8080', '--upstream', 'http://backend.gateway.svc:80'))).to.equal(true);
      expect(healthy(args(upstream))).to.equal(true);
      expect(healthy((f) => ((f.container.command = ['/edge-router', '--listen-address=0.0.0.0:8080']), args(upstream)(f)))).to.equal(true);
      expect(healthy(args())).to.equal(false);
      expect(healthy(args('-listen-address=:8080', upstream))).to.equal(false);
      expect(healthy(args(upstream, '--listen-address'))).to.equal(false);
      expect(healthy(args('--listen-address', upstream))).to.equal(false);
    });

    it('switches take no value, -- ends the flags, a wrapper shell is not read', () => {
      const accepts = fieldCondition.parse({ accepts: { flags: ['--config'], switches: ['--verbose'], required: ['--config'] } }).accepts!;
      expect(acceptsFlags({ args: ['--verbose', '--config', 'a.yaml', '--', '--anything'] }, accepts)).to.equal(true);
      expect(acceptsFlags({ args: ['--verbose=false', '--config=a.yaml', 'positional'] }, accepts)).to.equal(true);
      expect(acceptsFlags({ command: ['sh', '-c', 'app --config a.yaml'] }, accepts)).to.equal(false);
      expect(acceptsFlags({ args: ['--verbose'] }, accepts)).to.equal(false);
    });
  });

  it('the format: path or env for file and writable, a required flag among the known ones, neither path nor env beside them', () => {
    const ok = (c: Obj) => fieldCondition.safeParse(c).success;
    expect(ok({ file: { path: '/etc/x.yaml', from: { kind: 'ConfigMap', name: 'x', key: 'x.yaml' } } })).to.equal(true);
    expect(ok({ file: { from: { kind: 'ConfigMap', name: 'x', key: 'x.yaml' } } })).to.equal(false);
    expect(ok({ file: { path: 'relative/x' } })).to.equal(false);
    expect(ok({ writable: { env: 'TMPDIR' } })).to.equal(true);
    expect(ok({ writable: { path: '/tmp' }, path: 'spec.replicas' })).to.equal(false);
    expect(ok({ effective: {} })).to.equal(false);
    expect(ok({ claims: { name: 'data' } })).to.equal(false);
    expect(ok({ accepts: { flags: ['--a'], required: ['--b'] } })).to.equal(false);
    expect(ok({ accepts: { flags: ['not a flag'] } })).to.equal(false);
  });
});
