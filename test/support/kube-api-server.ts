import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiGroupList, apiResourceList, BROKEN_GROUP_VERSIONS, OPENAPI_DOCS, openApiIndex, RESOURCES } from './kube-fixtures.js';
import { testTls } from './kube-test-ca.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType?: string;
  body?: string;
}

/** A canned answer that replaces normal routing; `hang` never answers (for timeouts). */
export interface Intercept {
  status?: number;
  body?: unknown;
  hang?: boolean;
}

export interface KubeconfigOptions {
  token?: string;
  caFile?: string;
  context?: string;
  namespace?: string;
  /** Omit current-context. */
  noCurrentContext?: boolean;
}

const status = (code: number, reason: string, message: string, causes?: Obj[]) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code,
  ...(causes ? { details: { causes } } : {}),
});

/**
 * A small Kubernetes API server over HTTPS with a test CA: bearer-token auth,
 * discovery, OpenAPI v3, list/get with selectors and paging, events, pod logs,
 * server-side apply (dryRun, fieldManager, force), delete and Status errors,
 * all in the shapes kube-apiserver sends. State is an in-memory object map.
 */
export class KubeApiServer {
  readonly token = `kube-test-token-${randomBytes(12).toString('hex')}`;
  readonly requests: RecordedRequest[] = [];
  /** Objects by API path, e.g. `/api/v1/namespaces/x/pods/web-1`. */
  readonly objects = new Map<string, Obj>();
  /** Pod logs by `<namespace>/<pod>/<container>`. */
  readonly logs = new Map<string, string>();
  intercept?: (req: RecordedRequest) => Intercept | undefined;
  url = '';
  private readonly server = https.createServer({ key: testTls().key, cert: testTls().cert }, (req, res) => this.handle(req, res));
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'svc-kubeconfig-'));

  static async start(): Promise<KubeApiServer> {
    const s = new KubeApiServer();
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.url = `https://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
    for (const ns of ['default', 'x']) s.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    return s;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Writes a kubeconfig pointing at this server (YAML: JSON is YAML) and returns its path. */
  writeKubeconfig(opts: KubeconfigOptions = {}): string {
    const context = opts.context ?? 'test-context';
    const config = {
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'test-cluster', cluster: { server: this.url, 'certificate-authority': opts.caFile ?? testTls().caFile } }],
      users: [{ name: 'test-user', user: { token: opts.token ?? this.token } }],
      contexts: [{ name: context, context: { cluster: 'test-cluster', user: 'test-user', ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
      ...(opts.noCurrentContext ? {} : { 'current-context': context }),
    };
    const file = path.join(this.dir, `kubeconfig-${randomUUID()}.yaml`);
    writeFileSync(file, JSON.stringify(config, null, 2));
    return file;
  }

  /** Stores an object as if created earlier; returns its path. */
  put(obj: Obj): string {
    const p = this.pathOf(obj.apiVersion, obj.kind, obj.metadata.name, obj.metadata.namespace ?? 'default');
    this.objects.set(p, { ...obj, metadata: { uid: randomUUID(), resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', ...obj.metadata } });
    return p;
  }

  pathOf(apiVersion: string, kind: string, name: string, namespace = 'default'): string {
    const r = RESOURCES[apiVersion].find((x) => x.kind === kind && !x.name.includes('/'))!;
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return `${prefix}${r.namespaced ? `/namespaces/${namespace}` : ''}/${r.name}/${name}`;
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x');
      const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') || undefined };
      this.requests.push(rec);
      const send = (code: number, body: unknown, type = 'application/json') => {
        res.writeHead(code, { 'Content-Type': type });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      const canned = this.intercept?.(rec);
      if (canned?.hang) return;
      if (canned) return send(canned.status ?? 200, canned.body ?? {});
      const [code, body, type] = this.route(rec);
      send(code, body, type);
    });
  }

  private route(r: RecordedRequest): [number, unknown, string?] {
    const p = r.path;
    if (p === '/version') return [200, { major: '1', minor: '31', gitVersion: 'v1.31.2', platform: 'linux/amd64' }];
    if (p === '/api') return [200, { kind: 'APIVersions', versions: ['v1'] }];
    if (p === '/apis') return [200, apiGroupList()];
    if (p === '/openapi/v3') return [200, openApiIndex()];
    if (p.startsWith('/openapi/v3/')) {
      const doc = OPENAPI_DOCS[p.slice('/openapi/v3/'.length)];
      return doc ? [200, doc] : [404, status(404, 'NotFound', 'the server could not find the requested resource')];
    }
    const m = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(\/.*)?$/.exec(p);
    const gv = m && (m[1] ?? m[2]);
    if (!gv || !(gv in RESOURCES)) return [404, status(404, 'NotFound', 'the server could not find the requested resource')];
    if (BROKEN_GROUP_VERSIONS.has(gv)) return [503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')];
    const rest = (m![3] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
    if (rest.length === 0) return [200, apiResourceList(gv)];
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest.splice(0, 2);
    }
    const [resource, name, sub] = rest;
    const res = RESOURCES[gv].find((x) => x.name === resource);
    if (!res) return [404, status(404, 'NotFound', 'the server could not find the requested resource')];
    if (sub === 'log' && resource === 'pods') return this.podLog(namespace!, name, r.query);
    const prefix = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
    const objPath = `${prefix}${namespace ? `/namespaces/${namespace}` : ''}/${resource}/${name}`;
    const notFound = (): [number, unknown] => [404, status(404, 'NotFound', `${resource}${gv.includes('/') ? `.${gv.split('/')[0]}` : ''} "${name}" not found`)];
    if (name === undefined && r.method === 'GET') return this.list(res.kind, `${prefix}${namespace ? `/namespaces/${namespace}` : ''}/${resource}/`, prefix, resource, r.query);
    if (r.method === 'GET') return this.objects.has(objPath) ? [200, this.objects.get(objPath)] : notFound();
    if (r.method === 'DELETE') {
      if (!this.objects.delete(objPath)) return notFound();
      return [200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: resource } }];
    }
    if (r.method === 'PATCH') return this.apply(r, gv, res.kind, objPath, namespace, name);
    return [405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')];
  }

  private list(kind: string, pathPrefix: string, apiPrefix: string, resource: string, q: URLSearchParams): [number, unknown] {
    // all-namespace lists match `<prefix>/namespaces/<any>/<resource>/`
    const allNs = new RegExp(`^${apiPrefix.replace(/[.]/g, '\\.')}/namespaces/[^/]+/${resource}/`);
    let items = [...this.objects].filter(([k]) => k.startsWith(pathPrefix) || (!pathPrefix.includes('/namespaces/') && allNs.test(k))).map(([, o]) => o).filter((o) => o.kind === kind);
    for (const sel of (q.get('labelSelector') ?? '').split(',').filter(Boolean)) {
      const [k, v] = sel.split('=');
      items = items.filter((o) => o.metadata.labels?.[k] === v);
    }
    for (const sel of (q.get('fieldSelector') ?? '').split(',').filter(Boolean)) {
      const [k, v] = sel.split('=');
      items = items.filter((o) => String(k.split('.').reduce((a: Obj | undefined, part) => a?.[part], o)) === v);
    }
    const start = Number(q.get('continue') ?? 0);
    const limit = Number(q.get('limit') ?? 500);
    const page = items.slice(start, start + limit).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    const more = start + limit < items.length;
    return [200, { kind: `${kind}List`, apiVersion: 'v1', metadata: { resourceVersion: '9', ...(more ? { continue: String(start + limit) } : {}) }, items: page }];
  }

  private podLog(namespace: string, pod: string, q: URLSearchParams): [number, unknown, string?] {
    const obj = this.objects.get(`/api/v1/namespaces/${namespace}/pods/${pod}`);
    if (!obj) return [404, status(404, 'NotFound', `pods "${pod}" not found`)];
    const containers: string[] = (obj.spec?.containers ?? []).map((c: Obj) => c.name);
    const container = q.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
    if (!container) return [400, status(400, 'BadRequest', `a container name must be specified for pod ${pod}, choose one of: [${containers.join(' ')}]`)];
    let text = this.logs.get(`${namespace}/${pod}/${container}`) ?? '';
    const tail = q.get('tailLines');
    if (tail) text = text.split('\n').filter(Boolean).slice(-Number(tail)).map((l) => `${l}\n`).join('');
    const limit = q.get('limitBytes');
    if (limit) text = Buffer.from(text).subarray(0, Number(limit)).toString('utf8');
    return [200, text, 'text/plain'];
  }

  private apply(r: RecordedRequest, gv: string, kind: string, objPath: string, namespace: string | undefined, name: string): [number, unknown] {
    if (r.contentType !== 'application/apply-patch+yaml') return [415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/apply-patch+yaml`)];
    const manager = r.query.get('fieldManager');
    if (!manager) return [400, status(400, 'BadRequest', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')];
    let body: Obj;
    try {
      body = JSON.parse(r.body ?? '');
    } catch {
      return [400, status(400, 'BadRequest', 'error decoding YAML')];
    }
    if (body.kind !== kind || body.apiVersion !== gv || body.metadata?.name !== name) return [400, status(400, 'BadRequest', 'the name, kind or apiVersion of the object does not match the request')];
    if (namespace && !this.objects.has(`/api/v1/namespaces/${namespace}`)) return [404, status(404, 'NotFound', `namespaces "${namespace}" not found`)];
    const replicas = body.spec?.replicas;
    if (typeof replicas === 'number' && replicas < 0) {
      const group = gv.includes('/') ? `.${gv.split('/')[0]}` : '';
      return [422, status(422, 'Invalid', `${kind}${group} "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`, [
        { reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' },
      ])];
    }
    const existing = this.objects.get(objPath);
    const owner = existing?.metadata?.managedFields?.[0]?.manager;
    if (existing && owner && owner !== manager && r.query.get('force') !== 'true') {
      return [409, status(409, 'Conflict', `Apply failed with 1 conflict: conflict with "${owner}": .spec`, [{ reason: 'FieldManagerConflict', message: `conflict with "${owner}"`, field: '.spec' }])];
    }
    const stored = {
      ...body,
      metadata: {
        ...body.metadata,
        ...(namespace ? { namespace } : {}),
        uid: existing?.metadata.uid ?? randomUUID(),
        resourceVersion: String(Number(existing?.metadata.resourceVersion ?? 0) + 1),
        creationTimestamp: existing?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        managedFields: [{ manager, operation: 'Apply', apiVersion: gv, fieldsType: 'FieldsV1', fieldsV1: {} }],
      },
      ...(existing?.status ? { status: existing.status } : {}),
    };
    if (r.query.get('dryRun') !== 'All') this.objects.set(objPath, stored);
    return [existing ? 200 : 201, stored];
  }
}
