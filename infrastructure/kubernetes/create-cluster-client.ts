import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { MemberSource } from '../config/fleet-config.js';
import { ConfigError } from '../config/env-parsers.js';
import { UnconfiguredClusterClient } from '../not-configured/unconfigured-cluster-client.js';
import { kubeconfigContext, LazyClusterClient } from './lazy-cluster-client.js';

/**
 * The composition root's client: the kubeconfig is parsed now (a file that
 * does not parse stops start-up), the Kubernetes library loads on first use.
 */
export function createLazyClusterClient(config: ClusterConfig): ClusterClient & ImpersonatingClusterClients {
  const { source } = config;
  if (source.mode === 'none') return new UnconfiguredClusterClient();
  const context = source.mode === 'in-cluster' ? 'in-cluster' : kubeconfigContext(source.files, variableOf(source.origin));
  return LazyClusterClient.create(() => createClusterClient(config), context);
}

function variableOf(origin: 'KUBECONFIG' | 'default'): string {
  return origin === 'KUBECONFIG' ? 'KUBECONFIG' : 'KUBECONFIG (default ~/.kube/config)';
}

/**
 * Builds the cluster client the configuration asks for. A kubeconfig that
 * does not parse is a ConfigError naming KUBECONFIG; one that parses but has
 * no usable context yields a client whose status says so.
 */
export function createClusterClient(config: ClusterConfig, context?: string): ClusterClient & ImpersonatingClusterClients {
  const { source } = config;
  if (source.mode === 'none') return new UnconfiguredClusterClient();
  // Loaded only when a cluster is configured: @kubernetes/client-node alone costs ~0.4 s and ~70 MB at start-up.
  const { KubeConfig } = require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');
  const { KubernetesClusterClient } = require('./kubernetes-cluster-client.js') as typeof import('./kubernetes-cluster-client.js');
  const kc = new KubeConfig();
  if (source.mode === 'in-cluster') {
    loadInCluster(kc, source);
    return new KubernetesClusterClient(kc, { requestTimeoutMs: config.requestTimeoutMs, contextName: 'in-cluster' });
  }
  source.files.forEach((file, i) => {
    try {
      if (i === 0) {
        kc.loadFromFile(file);
      } else {
        const more = new KubeConfig();
        more.loadFromFile(file);
        // like kubectl: the first file's current-context wins
        kc.mergeConfig(more, true);
      }
    } catch (e) {
      // parser messages quote the offending lines (which may hold a token): keep the first line only
      const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 200);
      throw new ConfigError(variableOf(source.origin), `file ${file} is not a usable kubeconfig: ${first}`);
    }
  });
  // a fleet's member: that context of the merged files, whatever the current one is
  if (context !== undefined) kc.setCurrentContext(context);
  return new KubernetesClusterClient(kc, { requestTimeoutMs: config.requestTimeoutMs });
}

/**
 * The client of one cluster of the fleet (SVC_CLUSTERS): a context of the
 * kubeconfig files, or the pod's service account; built on first use, as
 * the one cluster's client is.
 */
export function createMemberClusterClient(config: ClusterConfig, source: MemberSource): ClusterClient & ImpersonatingClusterClients {
  if (source.mode === 'in-cluster') return LazyClusterClient.create(() => createClusterClient({ ...config, source }), 'in-cluster');
  const { context, ...files } = source;
  return LazyClusterClient.create(() => createClusterClient({ ...config, source: { ...files } }, context), context);
}

/**
 * What KubeConfig.loadFromCluster does, with the host and port from our
 * config instead of the library reading the environment itself. The token
 * goes through the `tokenFile` provider, which re-reads the file: projected
 * service-account tokens rotate.
 */
function loadInCluster(kc: KubeConfig, source: { host: string; port: number; serviceAccountDir: string }): void {
  const file = (name: string) => path.join(source.serviceAccountDir, name);
  const host = isIPv6(source.host) ? `[${source.host}]` : source.host;
  const namespace = existsSync(file('namespace')) ? readFileSync(file('namespace'), 'utf8').trim() : undefined;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server: `https://${host}:${source.port}`, caFile: file('ca.crt'), skipTLSVerify: false }],
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: file('token') } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? { namespace } : {}) }],
    currentContext: 'in-cluster',
  });
}
