import { NotConfiguredError } from '../../domain/errors.js';
import type { ClusterClient, ClusterStatus, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';

import { CLUSTER_HINT as HOW, KUBERNETES_CLUSTER as WHAT } from '../../application/ai/require-configured.js';

function notConfigured(): never {
  throw new NotConfiguredError(WHAT, HOW);
}

/** The cluster client when no kubeconfig and no in-cluster service account are found. */
export class UnconfiguredClusterClient implements ClusterClient, ImpersonatingClusterClients {
  /** No cluster for anyone: the same not-configured answers. */
  actingAs(): ClusterClient {
    return this;
  }
  async status(): Promise<ClusterStatus> {
    return { connected: false, context: '', error: `no cluster configured: ${HOW}` };
  }
  context(): string {
    return '';
  }
  async version(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async listApiResources(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async resolveKind(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async getResourceSchema(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async list(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async get(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async describe(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async events(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async logs(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async dryRunApply(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async apply(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async dryRunCreate(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async create(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async dryRunPatch(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async patch(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async dryRunDelete(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async delete(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
  async waitFor(..._args: unknown[]): Promise<never> {
    return notConfigured();
  }
}
