import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { durationMs, servesCertificate } from '../../lab/sandbox/behaviour-certificates.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';

/**
 * The fixtures are the scenario's own: real self-signed test certificates
 * (scenarios/ingress-tls-cert-expired/cluster.yaml) for shop.example.com,
 * expired 2026-11-30 (storefront-tls) and valid 2026-11-25 to 2036-11-25
 * (storefront-tls-renewed), and one for staging.shop.example.com.
 */
const SHOP = { host: 'shop.example.com' };
const DAY = 86_400_000;

describe('certificate: the Ingress serves the host a valid certificate with its key, whichever Secret holds it', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  const start = async () => (sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'ingress-tls-cert-expired')));
  const find = (s: ScenarioCluster, kind: string, name: string): Obj =>
    [...s.server.objects.values()].find((o) => o.kind === kind && o.metadata.name === name)!;
  const ingress = (s: ScenarioCluster) => find(s, 'Ingress', 'storefront');
  const pointAt = (s: ScenarioCluster, secretName: string) => (ingress(s).spec.tls = [{ hosts: ['shop.example.com'], secretName }]);
  const serves = (s: ScenarioCluster, wanted: { host: string; validFor?: string } = SHOP, at = Date.now()) =>
    servesCertificate(s.server, ingress(s), wanted, at);
  /** The scenario's verdict after `fix`: the rule's condition and the whole health report agree. */
  const healthyAfter = async (fix: (s: ScenarioCluster) => void) => {
    const s = await start();
    fix(s);
    const healthy = s.health().healthy;
    expect(serves(s, { ...SHOP, validFor: '720h' })).to.equal(healthy);
    return healthy;
  };

  it('broken: the certificate served for shop.example.com expired 2026-11-30; it was valid before', async () => {
    const s = await start();
    expect(serves(s)).to.equal(false);
    expect(serves(s, SHOP, Date.parse('2026-11-29T00:00:00Z'))).to.equal(true);
    expect(s.health().healthy).to.equal(false);
  });

  it("passes the transcript's fix (the Ingress names the renewed Secret) and others: the renewal written into the old Secret, a wildcard entry, stringData", async () => {
    expect(await healthyAfter((s) => pointAt(s, 'storefront-tls-renewed'))).to.equal(true);
    const copyIntoOld = (s: ScenarioCluster) => (find(s, 'Secret', 'storefront-tls').data = { ...find(s, 'Secret', 'storefront-tls-renewed').data });
    expect(await healthyAfter(copyIntoOld)).to.equal(true);
    const wildcardFirst = (s: ScenarioCluster) => ingress(s).spec.tls.unshift({ hosts: ['*.example.com'], secretName: 'storefront-tls-renewed' });
    expect(await healthyAfter(wildcardFirst)).to.equal(true);
    const asText = (s: ScenarioCluster) => {
      const renewed = find(s, 'Secret', 'storefront-tls-renewed');
      const text = Object.fromEntries(Object.entries(renewed.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
      Object.assign(find(s, 'Secret', 'storefront-tls'), { data: undefined, stringData: text });
    };
    expect(await healthyAfter(asText)).to.equal(true);
  });

  it('fails the wrong fixes: the expired Secret, a certificate for another host, a key not its own, an Opaque Secret, no TLS, a restart', async () => {
    expect(await healthyAfter((s) => pointAt(s, 'storefront-tls'))).to.equal(false);
    expect(await healthyAfter((s) => pointAt(s, 'storefront-staging-tls'))).to.equal(false);
    const wrongKey = (s: ScenarioCluster) => {
      find(s, 'Secret', 'storefront-tls').data['tls.crt'] = find(s, 'Secret', 'storefront-tls-renewed').data['tls.crt'];
    };
    expect(await healthyAfter(wrongKey)).to.equal(false);
    const opaque = (s: ScenarioCluster) => {
      find(s, 'Secret', 'storefront-tls-renewed').type = 'Opaque';
      pointAt(s, 'storefront-tls-renewed');
    };
    expect(await healthyAfter(opaque)).to.equal(false);
    expect(await healthyAfter((s) => delete ingress(s).spec.tls)).to.equal(false);
    // an entry for other hosts only does not cover shop.example.com
    expect(await healthyAfter((s) => (ingress(s).spec.tls = [{ hosts: ['staging.shop.example.com'], secretName: 'storefront-tls-renewed' }]))).to.equal(false);
    const restart = (s: ScenarioCluster) => [...s.server.objects.values()].filter((o) => o.kind === 'Pod').forEach((p) => s.server.remove(p));
    expect(await healthyAfter(restart)).to.equal(false);
  });

  it('judges the validity at the time given and for validFor after it; the host by the subject alternative names', async () => {
    const s = await start();
    pointAt(s, 'storefront-tls-renewed');
    const renewedFrom = Date.parse('2026-11-25T00:00:00Z');
    const renewedTo = Date.parse('2036-11-25T00:00:00Z');
    expect(serves(s, SHOP, renewedFrom - 1000)).to.equal(false);
    expect(serves(s, SHOP, renewedFrom)).to.equal(true);
    expect(serves(s, { ...SHOP, validFor: '720h' }, renewedTo - 31 * DAY)).to.equal(true);
    expect(serves(s, { ...SHOP, validFor: '720h' }, renewedTo - 29 * DAY)).to.equal(false);
    expect(serves(s, { host: 'www.shop.example.com' })).to.equal(false);
  });

  it('reads durations and is a condition of the scenario format on an Ingress only', () => {
    expect([durationMs('720h'), durationMs('1h30m'), durationMs('90s'), durationMs(undefined)]).to.deep.equal([720 * 3_600_000, 5_400_000, 90_000, 0]);
    const on = { object: { kind: 'Ingress', namespace: 'shop', name: 'storefront' } };
    expect(fieldCondition.safeParse({ ...on, certificate: { host: 'shop.example.com', validFor: '720h' } }).success).to.equal(true);
    expect(fieldCondition.safeParse({ certificate: { host: 'shop.example.com' } }).success).to.equal(false);
    expect(fieldCondition.safeParse({ ...on, certificate: { host: 'Shop Example' } }).success).to.equal(false);
    expect(fieldCondition.safeParse({ ...on, certificate: { host: 'shop.example.com', validFor: '30d' } }).success).to.equal(false);
    expect(fieldCondition.safeParse({ ...on, certificate: { host: 'shop.example.com' }, path: 'spec.tls' }).success).to.equal(false);
  });
});
