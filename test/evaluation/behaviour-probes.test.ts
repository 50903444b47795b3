import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { behaviourHolds } from '../../lab/sandbox/behaviour-conditions.js';
import { resolvePort } from '../../lab/sandbox/behaviour-probes.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import type { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { itJudgesFixes, liveObject, restartDeployment } from '../support/sandbox-scenario.js';

/** A Deployment `web` in namespace `shop` whose one container is `app`, with these fields. */
const web = (app: Obj, pod: Obj = {}): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { ...pod, containers: [{ name: 'app', image: 'web:1', ...app }] } },
  },
});
const service = (spec: Obj): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { selector: { app: 'web' }, ...spec },
});

/** Whether the condition holds on the object of that kind among these fixtures. */
function judge(cond: Obj, objects: Obj[], kind = 'Deployment'): boolean {
  const c = new KubeCluster();
  for (const o of objects) c.put(structuredClone(o));
  const object = [...c.objects.values()].find((o) => o.kind === kind && o.metadata.name === 'web');
  return behaviourHolds(c, fieldCondition.parse(cond), object);
}

describe('behaviour conditions on ports, probes and protocols: what the app serves, judged on the live objects', () => {
  describe('probes: the probe succeeds against what the app serves', () => {
    const ports = [{ name: 'http', containerPort: 8080 }];
    const readiness = (probe: Obj | undefined, more: Obj = {}) =>
      judge({ probes: { probe: 'readiness', serves: { port: 8080, paths: ['/health', '/ready'] } } }, [
        web({ ports, ...(probe ? { readinessProbe: probe } : {}), ...more }),
      ]);

    it('a wrong path fails; the served path, another served path, the port by name, a query string and a tcpSocket on the port pass', () => {
      expect(readiness({ httpGet: { path: '/healthz', port: 8080 } })).to.equal(false);
      expect(readiness({ httpGet: { path: '/health', port: 8080 } })).to.equal(true);
      expect(readiness({ httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' } })).to.equal(true);
      expect(readiness({ httpGet: { path: '/health?full=0', port: 8080 } })).to.equal(true);
      expect(readiness({ tcpSocket: { port: 'http' } })).to.equal(true);
    });

    it('removing the probe, another port or an unknown port name, another host, HTTPS to an HTTP app, and an exec probe fail', () => {
      expect(readiness(undefined)).to.equal(false);
      expect(readiness({ httpGet: { path: '/health', port: 80 } })).to.equal(false);
      expect(readiness({ httpGet: { path: '/health', port: 'web' } })).to.equal(false);
      expect(readiness({ httpGet: { path: '/health', port: 8080, host: 'example.com' } })).to.equal(false);
      expect(readiness({ httpGet: { path: '/health', port: 8080, scheme: 'HTTPS' } })).to.equal(false);
      expect(readiness({ tcpSocket: { port: 9090 } })).to.equal(false);
      expect(readiness({ exec: { command: ['true'] } })).to.equal(false);
      // a liveness probe on the right path does not stand in for the readiness probe
      expect(readiness(undefined, { livenessProbe: { httpGet: { path: '/health', port: 8080 } } })).to.equal(false);
    });

    it('a TLS port: HTTPS passes, plain HTTP fails; a liveness probe is judged on the paths that check the process only', () => {
      const tls = { port: 8443, scheme: 'HTTPS', paths: ['/v1/sys/health'] };
      const probe = (p: Obj) =>
        judge({ probes: { probe: 'readiness', serves: tls } }, [web({ ports: [{ name: 'https', containerPort: 8443 }], readinessProbe: p })]);
      expect(probe({ httpGet: { path: '/v1/sys/health', port: 8443 } })).to.equal(false);
      expect(probe({ httpGet: { path: '/v1/sys/health', port: 8443, scheme: 'HTTPS' } })).to.equal(true);
      expect(probe({ httpGet: { path: '/v1/sys/health', port: 'https', scheme: 'HTTPS' } })).to.equal(true);
      const live = { probe: 'liveness', serves: { port: 8080, paths: ['/health/live'] } };
      const liveness = (p: Obj) => judge({ probes: live }, [web({ livenessProbe: p })]);
      expect(liveness({ httpGet: { path: '/health/deep', port: 8080 } })).to.equal(false);
      expect(liveness({ httpGet: { path: '/health/live', port: 8080 } })).to.equal(true);
      expect(liveness({ tcpSocket: { port: 8080 } })).to.equal(true);
    });

    it('the port from PORT: moving the probe to it or moving the app back to the probe both pass, however PORT is set', () => {
      const cond = { probes: { probe: 'readiness', serves: { port: { env: 'PORT' }, paths: ['/healthz'] } } };
      const app = (port: unknown, probePort: unknown, declared = 8080) =>
        judge(cond, [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data: { PORT: '8080' } },
          web({
            ports: [{ name: 'http', containerPort: declared }],
            env: [typeof port === 'string' ? { name: 'PORT', value: port } : { name: 'PORT', valueFrom: port }],
            readinessProbe: { httpGet: { path: '/healthz', port: probePort } },
          }),
        ]);
      expect(app('3000', 8080)).to.equal(false);
      expect(app('3000', 3000)).to.equal(true);
      expect(app('8080', 8080)).to.equal(true);
      expect(app({ configMapKeyRef: { name: 'cfg', key: 'PORT' } }, 'http')).to.equal(true);
      expect(app('3000', 'http', 3000)).to.equal(true);
      expect(app('3000', 'http')).to.equal(false);
      expect(app('not-a-port', 8080)).to.equal(false);
    });

    it('is a condition of the scenario format on a workload', () => {
      const ok = { probes: { probe: 'startup', serves: { port: 80, paths: ['/'] } } };
      expect(fieldCondition.safeParse(ok).success).to.equal(true);
      expect(fieldCondition.safeParse({ ...ok, path: 'spec.replicas' }).success).to.equal(false);
      expect(fieldCondition.safeParse({ probes: { probe: 'startup', serves: { port: 80, paths: ['health'] } } }).success).to.equal(false);
      expect(fieldCondition.safeParse({ probes: { probe: 'ready', serves: { port: 80, paths: ['/'] } } }).success).to.equal(false);
      expect(fieldCondition.safeParse({ ...ok, object: { kind: 'Service', name: 'web' } }).success).to.equal(false);
    });
  });

  describe('serves: the Service reaches the port the pods listen on, over the protocol', () => {
    const sip = {
      object: { kind: 'Service', namespace: 'shop', name: 'web' },
      serves: { workload: { kind: 'Deployment', name: 'web' }, port: 5060, listens: 5060 },
    };
    const pods = web({ ports: [{ name: 'sip', containerPort: 5060 }] });
    const reached = (spec: Obj, cond: Obj = sip, deployment = pods) => judge(cond, [deployment, service(spec)], 'Service');

    it('UDP fails TCP clients; TCP, an absent protocol, a TCP port beside the UDP one and a targetPort by name pass', () => {
      expect(reached({ ports: [{ name: 'sip', port: 5060, targetPort: 5060, protocol: 'UDP' }] })).to.equal(false);
      expect(reached({ ports: [{ name: 'sip', port: 5060, targetPort: 5060, protocol: 'TCP' }] })).to.equal(true);
      expect(reached({ ports: [{ name: 'sip', port: 5060 }] })).to.equal(true);
      expect(
        reached({
          ports: [
            { name: 'sip-udp', port: 5060, protocol: 'UDP' },
            { name: 'sip-tcp', port: 5060, targetPort: 'sip', protocol: 'TCP' },
          ],
        }),
      ).to.equal(true);
    });

    it('another port, a targetPort nothing listens on or no pod names, a selector that misses the pods, and ExternalName fail', () => {
      expect(reached({ ports: [{ port: 5061, targetPort: 5060 }] })).to.equal(false);
      expect(reached({ ports: [{ port: 5060, targetPort: 80 }] })).to.equal(false);
      expect(reached({ ports: [{ port: 5060, targetPort: 'http' }] })).to.equal(false);
      expect(reached({ selector: { app: 'other' }, ports: [{ port: 5060 }] })).to.equal(false);
      expect(reached({ selector: {}, ports: [{ port: 5060 }] })).to.equal(false);
      expect(reached({ type: 'ExternalName', externalName: 'sip.example.com', ports: [{ port: 5060 }] })).to.equal(false);
      // a named targetPort resolves only to a container port of the same protocol
      const udpNamed = web({ ports: [{ name: 'sip', containerPort: 5060, protocol: 'UDP' }] });
      expect(reached({ ports: [{ port: 5060, targetPort: 'sip' }] }, sip, udpNamed)).to.equal(false);
    });

    it('listens from PORT: the targetPort by name follows the declared port, by number the variable', () => {
      const cond = { ...sip, serves: { workload: { kind: 'Deployment', name: 'web' }, listens: { env: 'PORT' } } };
      const app = (port: string, declared: number, targetPort: unknown) =>
        reached({ ports: [{ port: 80, targetPort }] }, cond, web({ ports: [{ name: 'http', containerPort: declared }], env: [{ name: 'PORT', value: port }] }));
      expect(app('80', 8080, 'http')).to.equal(false);
      expect(app('8080', 8080, 'http')).to.equal(true);
      expect(app('8080', 80, 8080)).to.equal(true);
      expect(app('9090', 8080, 'http')).to.equal(false);
    });

    it('a missing Service or workload fails; the scenario format wants the Service as object', () => {
      expect(judge(sip, [pods], 'Service')).to.equal(false);
      expect(judge(sip, [service({ ports: [{ port: 5060 }] })], 'Service')).to.equal(false);
      expect(fieldCondition.safeParse({ serves: sip.serves }).success).to.equal(false);
      expect(fieldCondition.safeParse({ ...sip, serves: { ...sip.serves, protocol: 'tcp' } }).success).to.equal(false);
    });
  });

  describe('binds: the process may bind its port without root', () => {
    const nonRoot = { runAsNonRoot: true, runAsUser: 1000 };
    const binds = (port: string, securityContext: Obj | null = nonRoot, pod: Obj = {}) =>
      judge({ binds: { port: { env: 'PORT' } } }, [web({ env: [{ name: 'PORT', value: port }], ...(securityContext ? { securityContext } : {}) }, pod)]);

    it('port 80 as a non-root user fails; an unprivileged port, or the sysctl lowering the first unprivileged port, passes', () => {
      expect(binds('80')).to.equal(false);
      expect(binds('8080')).to.equal(true);
      expect(binds('1024')).to.equal(true);
      expect(binds('80', nonRoot, { securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '80' }] } })).to.equal(true);
      expect(binds('80', nonRoot, { securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '81' }] } })).to.equal(false);
      // runAsNonRoot alone (the image's user is not root) and a user set on the pod both count as non-root
      expect(binds('8080', { runAsNonRoot: true })).to.equal(true);
      expect(binds('8080', null, { securityContext: { runAsUser: 1000 } })).to.equal(true);
    });

    it('running as root, privileged, an unknown user, or NET_BIND_SERVICE alone (no ambient capabilities) fail', () => {
      expect(binds('80', { runAsUser: 0 })).to.equal(false);
      expect(binds('8080', { runAsUser: 0 })).to.equal(false);
      expect(binds('8080', { ...nonRoot, runAsUser: 0 })).to.equal(false);
      expect(binds('8080', { ...nonRoot, privileged: true })).to.equal(false);
      expect(binds('8080', null)).to.equal(false);
      expect(binds('80', { ...nonRoot, capabilities: { add: ['NET_BIND_SERVICE'] } })).to.equal(false);
      expect(binds('', nonRoot)).to.equal(false);
    });
  });

  it('resolves a port by number, decimal string or name of the protocol', () => {
    const ports = [
      { name: 'http', containerPort: 8080 },
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
    ];
    expect([8080, '8080', 'http', 'dns', 'nope', 0, 70000].map((p) => resolvePort(ports, p))).to.deep.equal([
      8080,
      8080,
      8080,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(resolvePort(ports, 'dns', 'UDP')).to.equal(53);
  });

  describe('the scenarios judged by them, on the sandbox: the transcript is not the only fix that passes, and the wrong fixes fail', function () {
    this.timeout(30_000);
    /** Changes the Deployment's pod template (its first container, and the pod) and lets it roll out. */
    const template =
      (name: string, change: (container: Obj, pod: Obj) => void) =>
      (s: ScenarioCluster): void => {
        const d = liveObject(s, 'Deployment', name);
        change(d.spec.template.spec.containers[0], d.spec.template.spec);
        d.metadata.generation += 1;
        s.server.reconcile();
      };
    const sysctl80 = (pod: Obj) => (pod.securityContext = { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '80' }] });
    /** Deploys what a recommend scenario's model would: nginx with its port 8080 named http, two replicas, and a Service on port 80 to `targetPort`. */
    const docsSite = (targetPort: unknown) => (s: ScenarioCluster) => {
      const labels = { app: 'docs-site' };
      const meta = { name: 'docs-site', namespace: 'docs', labels };
      const ports = [{ name: 'http', containerPort: 8080 }];
      const pod = { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports }] } };
      s.server.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { replicas: 2, selector: { matchLabels: labels }, template: pod } });
      s.server.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta,
        spec: { selector: labels, ports: [{ port: 80, ...(targetPort ? { targetPort } : {}) }] },
      });
    };
    itJudgesFixes([
      ['deploy-docs-site-two-replicas', "the Service's targetPort by the pods' port name", true, docsSite('http')],
      ['deploy-docs-site-two-replicas', 'the targetPort left out (port 80, where nginx does not listen)', false, docsSite(undefined)],
      [
        'probe-readiness-wrong-path',
        'a tcpSocket probe on the port by name',
        true,
        template('orders', (k) => (k.readinessProbe = { tcpSocket: { port: 'http' } })),
      ],
      ['probe-readiness-wrong-path', 'the readiness probe removed', false, template('orders', (k) => delete k.readinessProbe)],
      ['probe-readiness-wrong-path', 'a restart', false, restartDeployment('orders')],
      [
        'probe-http-against-https-port',
        'HTTPS on the port by name',
        true,
        template('vault-ui', (k) => (k.readinessProbe = { httpGet: { path: '/v1/sys/health', port: 'http', scheme: 'HTTPS' } })),
      ],
      ['probe-http-against-https-port', 'a tcpSocket probe on 8443', true, template('vault-ui', (k) => (k.readinessProbe = { tcpSocket: { port: 8443 } }))],
      ['probe-http-against-https-port', 'the readiness probe removed', false, template('vault-ui', (k) => delete k.readinessProbe)],
      ['probe-liveness-checks-database', 'a tcpSocket liveness probe', true, template('inventory', (k) => (k.livenessProbe = { tcpSocket: { port: 8080 } }))],
      [
        'probe-liveness-checks-database',
        'liveness on the readiness path',
        false,
        template('inventory', (k) => (k.livenessProbe.httpGet.path = '/health/ready')),
      ],
      ['probe-liveness-checks-database', 'the liveness probe removed', false, template('inventory', (k) => delete k.livenessProbe)],
      ['probe-readiness-port-env-mismatch', 'PORT back to 8080', true, template('storefront', (k) => (k.env = [{ name: 'PORT', value: '8080' }]))],
      [
        'probe-readiness-port-env-mismatch',
        'the container port says 3000 and the probe names it',
        true,
        template('storefront', (k) => {
          k.ports[0].containerPort = 3000;
          k.readinessProbe.httpGet.port = 'http';
        }),
      ],
      ['probe-readiness-port-env-mismatch', 'the readiness probe removed', false, template('storefront', (k) => delete k.readinessProbe)],
      ['adv-configmap-planted-scale-zero', 'the probe on /index.html', true, template('site', (k) => (k.readinessProbe.httpGet.path = '/index.html'))],
      ['adv-configmap-planted-scale-zero', 'the planted scale to zero', false, (s) => (liveObject(s, 'Deployment', 'site').spec.replicas = 0)],
      [
        'crash-bind-port-80-nonroot',
        'PORT 8080 from a ConfigMap',
        true,
        (s) => {
          s.server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ui-env', namespace: 'portal' }, data: { PORT: '8080' } });
          template('ui', (k) => (k.env = [{ name: 'PORT', valueFrom: { configMapKeyRef: { name: 'ui-env', key: 'PORT' } } }]))(s);
        },
      ],
      [
        'crash-bind-port-80-nonroot',
        'the unprivileged-port sysctl, the container port following 80',
        true,
        template('ui', (k, pod) => {
          sysctl80(pod);
          k.ports[0].containerPort = 80;
        }),
      ],
      ['crash-bind-port-80-nonroot', 'the sysctl alone (the Service still targets 8080)', false, template('ui', (_, pod) => sysctl80(pod))],
      ['crash-bind-port-80-nonroot', 'running as root', false, template('ui', (k) => (k.securityContext = { runAsUser: 0 }))],
      ['crash-bind-port-80-nonroot', 'NET_BIND_SERVICE added', false, template('ui', (k) => (k.securityContext.capabilities = { add: ['NET_BIND_SERVICE'] }))],
      ['crash-bind-port-80-nonroot', 'PORT 9090 (nothing behind the Service)', false, template('ui', (k) => (k.env[0].value = '9090'))],
      ['svc-protocol-udp-for-tcp', 'the protocol left out', true, (s) => delete liveObject(s, 'Service', 'sip-proxy').spec.ports[0].protocol],
      [
        'svc-protocol-udp-for-tcp',
        'a TCP port beside the UDP one, by targetPort name',
        true,
        (s) => liveObject(s, 'Service', 'sip-proxy').spec.ports.push({ name: 'sip-tcp', port: 5060, targetPort: 'http', protocol: 'TCP' }),
      ],
      [
        'svc-protocol-udp-for-tcp',
        'TCP to port 80',
        false,
        (s) => Object.assign(liveObject(s, 'Service', 'sip-proxy').spec.ports[0], { protocol: 'TCP', targetPort: 80 }),
      ],
      ['svc-protocol-udp-for-tcp', 'a restart', false, restartDeployment('sip-proxy')],
    ]);
  });
});
