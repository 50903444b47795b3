import { kubeIdentityOf, type KubeIdentity } from '../../domain/auth/kube-identity.js';
import type { ClusterClient, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import { CLUSTER_READER_METHODS, type ClusterStatus } from '../../domain/ports/cluster-reader.js';
import { CLUSTER_WRITER_METHODS } from '../../domain/ports/cluster-writer.js';
import { actingCaller } from './acting-caller.js';

/**
 * The cluster port with `SVC_KUBE_IMPERSONATE` on: each call is made by the
 * client of the caller the current work is done for (actingFor), so the API
 * server's RBAC decides per person; work for no caller, and the callers that
 * are no person (`SVC_AUTH_TOKEN`, a loopback server without
 * authentication), use svc's own client. An identity that cannot be sent
 * safely is a ForbiddenError before any request.
 */
export function callerAwareCluster(own: ClusterClient, clients: ImpersonatingClusterClients): ClusterClient {
  const current = (): ClusterClient => {
    const identity = actingIdentity();
    return identity ? clients.actingAs(identity) : own;
  };
  const view: Partial<Record<string, unknown>> = {
    context: () => own.context(),
    // never throws, as the port says: an identity that cannot be used is `connected: false`
    status: async (): Promise<ClusterStatus> => {
      try {
        return await current().status();
      } catch (e) {
        return { connected: false, context: own.context(), error: (e as Error).message };
      }
    },
  };
  for (const name of [...CLUSTER_READER_METHODS, ...CLUSTER_WRITER_METHODS]) {
    if (name === 'context' || name === 'status') continue;
    // async: a refused identity is a rejected promise, as every other failure of these methods
    view[name] = async (...args: unknown[]) => (current()[name] as (...a: unknown[]) => unknown)(...args);
  }
  return view as unknown as ClusterClient;
}

/** Who the current work acts as in the cluster: the caller's identity, or undefined for svc's own. Throws ForbiddenError as kubeIdentityOf. */
export function actingIdentity(): KubeIdentity | undefined {
  const caller = actingCaller();
  return caller && kubeIdentityOf(caller);
}

/** The user a span says the current work acts as: the impersonated user, `svc`, or `refused` for a name that cannot be sent. */
export function actingUserForSpans(): string {
  try {
    return actingIdentity()?.user ?? 'svc';
  } catch {
    return 'refused';
  }
}
