import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { ClusterConfig } from '../config/cluster-config.js';
import { ConfigError } from '../config/env-parsers.js';
import { UnconfiguredClusterClient } from '../not-configured/unconfigured-cluster-client.js';
import { KubernetesClusterClient } from './kubernetes-cluster-client.js';

/**
 * Builds the cluster client the configuration asks for. A kubeconfig that
 * does not parse stops start-up (ConfigError naming KUBECONFIG); one that
 * parses but has no usable context yields a client whose status says so.
 */
export function createClusterClient(config: ClusterConfig): ClusterClient {
  const { source } = config;
  if (source.mode === 'none') return new UnconfiguredClusterClient();
  const kc = new KubeConfig();
  if (source.mode === 'in-cluster') {
    kc.loadFromCluster();
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
      const variable = source.origin === 'KUBECONFIG' ? 'KUBECONFIG' : 'KUBECONFIG (default ~/.kube/config)';
      throw new ConfigError(variable, `file ${file} is not a usable kubeconfig: ${first}`);
    }
  });
  return new KubernetesClusterClient(kc, { requestTimeoutMs: config.requestTimeoutMs });
}
