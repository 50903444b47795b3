import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WriteScope } from '../../domain/actions/write-scope.js';
import { parseKindName } from '../../domain/write-guard/kind-names.js';
import { POD_SECURITY_LEVELS, type PodSecurityLevel } from '../../domain/write-guard/pod-security-levels.js';
import type { ClusterSource } from './cluster-config.js';
import { ConfigError, str, type Env } from './env-parsers.js';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const KIND = /^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/|\/)?[A-Z][A-Za-z0-9]{0,62}$/;
const REGISTRY = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$/;
const KIND_RISK = /^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|core)\/[A-Z][A-Za-z0-9]{0,62}=(low|medium|high)$/;

/** A comma-separated list, each entry checked; empty (or unset) means no list. */
function list(env: Env, name: string, pattern: RegExp, what: string): string[] {
  const items = (str(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.find((i) => !pattern.test(i));
  if (bad !== undefined) throw new ConfigError(name, `must be a comma-separated list of ${what}, got "${bad}"`);
  return [...new Set(items)];
}

/**
 * Where svc may write (remediate, operate, deployManifests):
 * SVC_WRITE_NAMESPACES and SVC_WRITE_KINDS (`apps/Deployment`, `Service`
 * for built-in groups only, `serving.knative.dev/Service`), empty meaning
 * all; SVC_IMAGE_REGISTRIES (`ghcr.io,registry.example:5000`), empty meaning
 * any; SVC_POD_SECURITY_LEVEL (privileged, baseline (default), restricted);
 * SVC_KIND_RISK (`acme.io/BuildJob=medium`), the risk of kinds the write
 * guard has no rules for (else high). svc's own
 * namespace (always high risk, never written automatically) is SVC_NAMESPACE,
 * else POD_NAMESPACE (the chart sets it from the downward API), else the
 * in-cluster service account's namespace file.
 */
export function parseWriteConfig(env: Env, cluster: ClusterSource, readNamespaceFile: (file: string) => string | undefined = readIfExists): WriteScope {
  const own = str(env, 'SVC_NAMESPACE') ?? str(env, 'POD_NAMESPACE');
  if (own !== undefined && !NAMESPACE.test(own))
    throw new ConfigError(str(env, 'SVC_NAMESPACE') ? 'SVC_NAMESPACE' : 'POD_NAMESPACE', `must be a namespace name, got "${own}"`);
  const fromFile = cluster.mode === 'in-cluster' ? readNamespaceFile(path.join(cluster.serviceAccountDir, 'namespace'))?.trim() : undefined;
  const ownNamespace = own ?? (fromFile && NAMESPACE.test(fromFile) ? fromFile : undefined);
  return {
    namespaces: list(env, 'SVC_WRITE_NAMESPACES', NAMESPACE, 'namespace names'),
    kinds: list(env, 'SVC_WRITE_KINDS', KIND, 'kinds such as Deployment, apps/Deployment or serving.knative.dev/Service').map(parseKindName),
    imageRegistries: list(env, 'SVC_IMAGE_REGISTRIES', REGISTRY, 'registry hosts such as ghcr.io or registry.example:5000'),
    ...(ownNamespace ? { ownNamespace } : {}),
    podSecurityLevel: podSecurityLevel(env),
    kindRisks: list(env, 'SVC_KIND_RISK', KIND_RISK, 'group/Kind=level entries such as acme.io/BuildJob=medium').map((entry) => {
      try {
        // the write guard's rule table loads only when SVC_KIND_RISK names kinds (start-up time)
        const { parseKindRisk } = require('../../domain/write-guard/kind-risk.js') as typeof import('../../domain/write-guard/kind-risk.js');
        return parseKindRisk(entry);
      } catch (e) {
        throw new ConfigError('SVC_KIND_RISK', (e as Error).message);
      }
    }),
  };
}

/** SVC_POD_SECURITY_LEVEL: the Pod Security Standards level where a namespace enforces none; default baseline. */
function podSecurityLevel(env: Env): PodSecurityLevel {
  const level = str(env, 'SVC_POD_SECURITY_LEVEL') ?? 'baseline';
  if (!(POD_SECURITY_LEVELS as readonly string[]).includes(level))
    throw new ConfigError('SVC_POD_SECURITY_LEVEL', `must be one of ${POD_SECURITY_LEVELS.join(', ')}, got "${level}"`);
  return level as PodSecurityLevel;
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}
