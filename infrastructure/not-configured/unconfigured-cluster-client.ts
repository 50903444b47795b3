import { NotConfiguredError } from '../../domain/errors.js';
import type { ClusterClient, ClusterStatus } from '../../domain/ports/cluster-client.js';

const WHAT = 'The Kubernetes cluster';
const HOW = 'set KUBECONFIG or run svc inside a cluster';

function notConfigured(): never {
  throw new NotConfiguredError(WHAT, HOW);
}

/** The cluster client when no kubeconfig and no in-cluster service account are found. */
export class UnconfiguredClusterClient implements ClusterClient {
  async status(): Promise<ClusterStatus> {
    return { connected: false, context: '', error: `no cluster configured: ${HOW}` };
  }
  context(): string {
    return '';
  }
  version = async () => notConfigured();
  listApiResources = async () => notConfigured();
  getResourceSchema = async () => notConfigured();
  list = async () => notConfigured();
  get = async () => notConfigured();
  describe = async () => notConfigured();
  events = async () => notConfigured();
  logs = async () => notConfigured();
  dryRunApply = async () => notConfigured();
  apply = async () => notConfigured();
  delete = async () => notConfigured();
  waitFor = async () => notConfigured();
}
