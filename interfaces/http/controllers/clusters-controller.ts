import { Controller, Get, Request, Route, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { inject, injectable } from 'tsyringe';
import type { ListClusters } from '../../../application/cluster/list-clusters.js';
import { TOKENS } from '../../../infrastructure/tokens.js';
import { callerOf, ok, type SuccessEnvelope } from '../envelope.js';

/** One cluster svc serves. */
export interface ClusterItem {
  /** The kubeconfig context (or `in-cluster`): what a tool call's `cluster` names. */
  name: string;
  /** The cluster's labels from SVC_CLUSTERS_FILE (what a clusterSelector matches). */
  labels: { [key: string]: string };
  /** svc never writes to it: execution is refused (403) before any write. */
  readOnly: boolean;
  /** svc reached its API server just now. */
  reachable: boolean;
  /** The API server's version (gitVersion) when reachable. */
  serverVersion?: string;
  /** Why it is not reachable (never a credential). */
  error?: string;
}

export interface ClusterListData {
  clusters: ClusterItem[];
}

/**
 * The clusters svc serves (SVC_CLUSTERS, kubeconfig contexts; without it the
 * one cluster of the kubeconfig's current context or the pod). Viewer role.
 */
@injectable()
@Route('api/v1/clusters')
@Tags('Clusters')
export class ClustersController extends Controller {
  constructor(@inject(TOKENS.ListClusters) private readonly listClusters: ListClusters) {
    super();
  }

  /**
   * Every cluster with its labels, whether it is read-only, whether svc
   * reaches it now and its server version. One unreachable cluster is listed
   * `reachable: false` with why; it does not fail the answer.
   */
  @Get()
  public async list(@Request() req: ExpressRequest): Promise<SuccessEnvelope<ClusterListData>> {
    return ok(req, await this.listClusters.execute(callerOf(req.res!)));
  }
}
