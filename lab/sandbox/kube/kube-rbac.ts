/**
 * Authorization in the Kubernetes API stand-in, as kube-apiserver answers it:
 *
 * - Impersonation: `Impersonate-User` (one) and `Impersonate-Group` (any
 *   number) act as that user, when svc's own identity (the kubeconfig's token,
 *   `system:serviceaccount:svc:svc`) may impersonate (`mayImpersonate`); otherwise
 *   403 `users "alice" is forbidden: User "system:serviceaccount:svc:svc" cannot
 *   impersonate resource "users" in API group "" at the cluster scope`. Groups
 *   without a user are 400, as `requested [...] without impersonating a user`.
 * - RBAC: every resource request is allowed unless a `deny` rule matches the
 *   acting user (or one of their groups), the verb, the resource (`deployments`,
 *   `pods/log`), and the namespace; then 403 with the authorizer's Status body
 *   (`deployments.apps "web" is forbidden: User "alice" cannot patch resource
 *   "deployments" in API group "apps" in the namespace "prod"`). Discovery,
 *   `/version` and `/openapi` are allowed to anyone (system:discovery).
 * - Verbs from the request as the API server's RequestInfo reads them: GET of
 *   a name `get`, of a collection `list`, PATCH `patch`, DELETE `delete`, POST `create`.
 */
import type { IncomingMessage } from 'node:http';
import { statusBody, type Answer } from './kube-writes.js';

/** svc's own identity: who the kubeconfig's bearer token is. */
export const SVC_USER = 'system:serviceaccount:svc:svc';

export interface Acting {
  user: string;
  groups: string[];
  impersonated: boolean;
}

export interface DenyRule {
  /** A user name or, with `group`, a group; neither: everyone. */
  user?: string;
  group?: string;
  verb: string;
  resource: string;
  /** Absent: every namespace (and the cluster scope). */
  namespace?: string;
}

interface Attributes {
  verb: string;
  resource: string;
  group: string;
  namespace?: string;
  name?: string;
}

export class KubeRbac {
  /** Whether svc's own identity may impersonate users and groups (the ClusterRole of `kube.impersonate`). */
  mayImpersonate = false;
  private readonly rules: DenyRule[] = [];

  deny(rule: DenyRule): void {
    this.rules.push(rule);
  }

  /** Forgets every deny rule (impersonation stays as set). */
  allowAll(): void {
    this.rules.length = 0;
  }

  /** Who a request acts as, or the refusal of its impersonation headers. */
  acting(req: IncomingMessage): Acting | Answer {
    const users = req.headersDistinct['impersonate-user'] ?? [];
    const groups = req.headersDistinct['impersonate-group'] ?? [];
    if (users.length === 0 && groups.length === 0) return { user: SVC_USER, groups: [], impersonated: false };
    if (users.length !== 1)
      return [400, statusBody(400, 'BadRequest', `requested [${groups.map((g) => `{Group  ${g}}`).join(' ')}] without impersonating a user`)];
    if (!this.mayImpersonate) {
      const msg = `users "${users[0]}" is forbidden: User "${SVC_USER}" cannot impersonate resource "users" in API group "" at the cluster scope`;
      return [403, forbidden(msg, { name: users[0], kind: 'users' })];
    }
    return { user: users[0], groups, impersonated: true };
  }

  /** The authorizer's 403 for this request, or undefined when it is allowed. */
  refusal(method: string, path: string, who: Acting): Answer | undefined {
    const a = attributesOf(method, path);
    if (!a) return undefined;
    const denied = this.rules.some(
      (r) =>
        (r.user === undefined || r.user === who.user) &&
        (r.group === undefined || who.groups.includes(r.group)) &&
        r.verb === a.verb &&
        r.resource === a.resource &&
        (r.namespace === undefined || r.namespace === a.namespace),
    );
    if (!denied) return undefined;
    const base = a.resource.split('/')[0];
    const what = `${base}${a.group ? `.${a.group}` : ''}${a.name !== undefined ? ` "${a.name}"` : ''}`;
    const scope = a.namespace !== undefined ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    const msg = `${what} is forbidden: User "${who.user}" cannot ${a.verb} resource "${a.resource}" in API group "${a.group}" ${scope}`;
    return [403, forbidden(msg, { ...(a.name !== undefined ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: base })];
  }
}

function forbidden(message: string, details: Record<string, string>) {
  return { ...statusBody(403, 'Forbidden', message), details };
}

/** The request's authorization attributes; undefined for a non-resource request (discovery, /version, /openapi). */
function attributesOf(method: string, path: string): Attributes | undefined {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(\/.*)?$/.exec(path);
  if (!m) return undefined;
  const rest = (m[2] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  if (rest.length === 0) return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest.splice(0, 2);
  }
  const [resource, name, sub] = rest;
  const verb = { GET: name === undefined ? 'list' : 'get', PATCH: 'patch', DELETE: 'delete', POST: 'create', PUT: 'update' }[method] ?? method.toLowerCase();
  return {
    verb,
    resource: sub ? `${resource}/${sub}` : resource,
    group: m[1] ?? '',
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
