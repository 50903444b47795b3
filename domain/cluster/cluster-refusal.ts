import { ForbiddenError } from '../errors.js';

/** What the API server's authorizer refused, as its 403 message names it. */
export interface ClusterRefusal {
  /** The user the request was made as (the impersonated caller, or svc's own identity when impersonation itself was refused). */
  user: string;
  verb: string;
  /** `deployments`, `pods/log`; a non-resource request names its path instead. */
  resource?: string;
  /** API group; '' is the core group. */
  group?: string;
  /** Absent at the cluster scope. */
  namespace?: string;
  path?: string;
}

// kube-apiserver's forbidden message: `<what> is forbidden: User "u" cannot <verb> resource "r" in API group "g" in the namespace "n"`
const AUTHORIZER =
  /User "((?:[^"\\]|\\.)*)" cannot (\S+) (?:resource "([^"]+)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]+)"| at the cluster scope)?|path "([^"]+)")/;

/** The refusal in a 403 message, or undefined when the message is not the authorizer's (a webhook's own words). */
export function parseClusterRefusal(message: string): ClusterRefusal | undefined {
  const m = AUTHORIZER.exec(message);
  if (!m) return undefined;
  const [, user, verb, resource, group, namespace, path] = m;
  return {
    user: user.replace(/\\(.)/g, '$1'),
    verb,
    ...(resource !== undefined ? { resource } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

/** `patch deployments.apps in namespace "prod"`, `get nodes at the cluster scope`, `get path /version`. */
export function describeRefusal(r: ClusterRefusal): string {
  if (r.path !== undefined) return `${r.verb} path ${r.path}`;
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  return `${r.verb} ${resource} ${r.namespace !== undefined ? `in namespace "${r.namespace}"` : 'at the cluster scope'}`;
}

/**
 * The API server's 403 as the caller's refusal (403 FORBIDDEN): the message
 * names who was refused and the verb, resource and namespace, then the
 * server's own words; `details` carries them (and `reason: 'Forbidden'`, so a
 * ledger records the write as refused).
 */
export function clusterForbidden(serverMessage: string, op: string): ForbiddenError {
  const refusal = parseClusterRefusal(serverMessage);
  const what = refusal ? `Kubernetes does not let ${refusal.user} ${describeRefusal(refusal)} (during ${op})` : `Kubernetes refused ${op} (403 Forbidden)`;
  return new ForbiddenError(`${what}: ${serverMessage}`, { reason: 'Forbidden', code: 403, ...(refusal ?? {}) });
}
