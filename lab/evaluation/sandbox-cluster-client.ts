import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';

/**
 * The real Kubernetes adapter pointed at a sandbox, on simulated time: a
 * rollout wait's sleep passes at once and moves the adapter's clock by what it
 * slept (the sandbox's own clock advances one step per workload read), so a
 * case waits for rollouts as svc would, in milliseconds.
 */
export function sandboxClusterClient(kubeconfigFile: string, context?: string): ClusterClient & ImpersonatingClusterClients {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigFile);
  // a case on several clusters: one client per context
  if (context !== undefined) kc.setCurrentContext(context);
  let slept = 0;
  return new KubernetesClusterClient(kc, {
    requestTimeoutMs: 10_000,
    now: () => Date.now() + slept,
    sleep: async (ms) => {
      slept += ms;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  });
}
