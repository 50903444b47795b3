import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';

/**
 * The `certificate` behaviour condition (docs/evaluation.md, "Behaviour
 * conditions"): what certificate an Ingress serves for a host, judged as a
 * browser and the ingress controller would, not by the Secret's name. Pointing
 * the Ingress at the renewed Secret and writing the renewed certificate into
 * the Secret it already names both pass; the expired certificate, one for
 * another host, a key that is not the certificate's, or no TLS at all fail.
 */

type Wanted = NonNullable<FieldCondition['certificate']>;

const DURATION_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000 };

/** A duration such as `720h`, `1h30m` or `90s` in milliseconds (0 when absent). */
export function durationMs(text: string | undefined): number {
  return [...(text ?? '').matchAll(/(\d+)([hms])/g)].reduce((ms, [, n, unit]) => ms + Number(n) * DURATION_UNITS[unit], 0);
}

/** Whether a TLS entry's host (`shop.example.com`, `*.example.com`) covers the host: equal, or a wildcard for exactly one label. */
function hostCovers(pattern: unknown, host: string): boolean {
  if (typeof pattern !== 'string') return false;
  const p = pattern.toLowerCase();
  return p === host || (p.startsWith('*.') && host.slice(host.indexOf('.') + 1) === p.slice(2));
}

/** A value of a Secret as the controller reads it: `data` decoded from base64, else `stringData`. */
function secretValue(secret: Obj, key: string): string | undefined {
  const data = secret.data?.[key];
  if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
  const text = secret.stringData?.[key];
  return typeof text === 'string' ? text : undefined;
}

/** The certificate and key a Secret holds, when it is a kubernetes.io/tls Secret whose tls.crt parses and whose tls.key is that certificate's key. */
function keyPair(secret: Obj | undefined): X509Certificate | undefined {
  if (secret?.type !== 'kubernetes.io/tls') return undefined;
  const crt = secretValue(secret, 'tls.crt');
  const key = secretValue(secret, 'tls.key');
  if (crt === undefined || key === undefined) return undefined;
  try {
    // the first certificate of a chain is the one served; the rest are its issuers
    const cert = new X509Certificate(crt);
    return cert.checkPrivateKey(createPrivateKey(key)) ? cert : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the Ingress serves `wanted.host` a certificate valid at `nowMs`
 * (and `validFor` after it): the first `spec.tls` entry whose hosts cover the
 * host names a Secret of the Ingress's namespace of type kubernetes.io/tls,
 * whose tls.crt is an X.509 certificate for the host (its subject alternative
 * names) and whose tls.key is the certificate's private key.
 */
export function servesCertificate(c: KubeCluster, ingress: Obj, wanted: Wanted, nowMs: number): boolean {
  const entry = ((ingress.spec?.tls ?? []) as Obj[]).find((t) => Array.isArray(t?.hosts) && t.hosts.some((h: unknown) => hostCovers(h, wanted.host)));
  if (typeof entry?.secretName !== 'string') return false;
  const cert = keyPair(c.objects.get(c.pathOf('v1', 'Secret', entry.secretName, ingress.metadata.namespace ?? 'default')));
  if (!cert || cert.checkHost(wanted.host, { subject: 'never' }) === undefined) return false;
  return Date.parse(cert.validFrom) <= nowMs && nowMs + durationMs(wanted.validFor) <= Date.parse(cert.validTo);
}
