/** What the `version` tool reports about the cluster. */
export interface ClusterStatus {
  connected: boolean;
  /** Current kubeconfig context name, or 'in-cluster'; '' when none is configured. */
  context: string;
  /** Server version (gitVersion) when connected. */
  serverVersion?: string;
  /** Why it is not connected, with what to set. Never carries a credential. */
  error?: string;
}

/** Kubernetes API access. Grows with the deployment and operations issues. */
export interface ClusterClient {
  /** Never throws: an unreachable cluster is `connected: false`. */
  status(): Promise<ClusterStatus>;
}
