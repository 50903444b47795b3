import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiGroupList, apiResourceList, BROKEN_GROUP_VERSIONS, OPENAPI_DOCS, OPENAPI_V2, openApiIndex, RESOURCES } from './kube-fixtures.js';
import { KubeCluster, type Obj } from './kube-cluster.js';
import { KubeRbac } from './kube-rbac.js';
import { scaleAnswer } from './kube-scale.js';
import { table, wantsTable } from './kube-tables.js';
import { testTls } from './kube-test-ca.js';
import { streamWatch } from './kube-watch.js';
import { createObject, deleteObject, statusBody as status, writePatch, type Answer } from './kube-writes.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType?: string;
  body?: string;
  /** The `Impersonate-User` header (absent without one). */
  impersonateUser?: string;
  /** Every `Impersonate-Group` header, in order. */
  impersonateGroups: string[];
  /** The `Accept` header (`application/json;as=Table;...` asks for a Table). */
  accept?: string;
}

/** A watch: answered as a stream rather than one body. */
interface Streamed {
  stream: (res: import('node:http').ServerResponse) => void;
}

/** A canned answer that replaces normal routing; `hang` never answers (for timeouts). */
export interface Intercept {
  status?: number;
  body?: unknown;
  /** `Warning` header texts to send. */
  warnings?: string[];
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

/** Kinds whose GET (single or list) is one tick of the simulation when `autoTick` is on. */
const TICKING_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'Pod']);

/**
 * A small Kubernetes API server over HTTPS with a test CA, answering in the
 * shapes kube-apiserver sends: bearer-token auth (401 Status otherwise),
 * discovery (`/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`, with short names and the
 * `all` category; one aggregated group answering 503, advertised unless
 * `advertiseBroken` is off, as the sandbox has it), OpenAPI v3 (`/openapi/v3`
 * index and per group version docs with paths) and v2 (`/openapi/v2`), lists
 * carrying their group version with label selectors (`a=b`) and field selectors
 * (`involvedObject.kind=Pod`) and paging (`limit`, `continue`), get, Tables for
 * `Accept: ...;as=Table` (kube-tables.ts), watches (`?watch=1`, kube-watch.ts),
 * the `scale` subresource (kube-scale.ts), events, pod logs (`container`,
 * `tailLines`, `limitBytes`, `previous=true`; 400 "previous terminated container
 * ... not found" without a restart, 400 "is waiting to start" before a first
 * start), and the writes of kube-writes.ts (server-side apply, merge, strategic
 * merge and JSON patches, delete, `dryRun=All`, `fieldValidation`, resourceVersion
 * preconditions, `Warning` headers), with Status errors.
 *
 * The state, image registry (`server.knownImages.set(image, mib)`), clock
 * (`tick()`, `settle()`, `autoTick`, `wallClock`) and `put` / `create` / `pathOf` come from
 * KubeCluster (kube-cluster.ts); the simulated controllers behind them are in
 * kube-deployments.ts, kube-replicasets.ts, kube-statefulsets.ts and kube-pods.ts.
 *
 * - `requests`: every request received, in order.
 * - `intercept`: return a canned answer (or `hang`) for a request, before routing.
 * - `holdAnswer`: carry a request out but hold its answer (`held`, `releaseHeld()`).
 * - `writeKubeconfig(opts)`: a kubeconfig file for this server.
 * - `rbac`: impersonation and per-user refusals with the authorizer's 403 (kube-rbac.ts).
 */
export class KubeApiServer extends KubeCluster {
  readonly token = `kube-test-token-${randomBytes(12).toString('hex')}`;
  readonly requests: RecordedRequest[] = [];
  readonly rbac = new KubeRbac();
  intercept?: (req: RecordedRequest) => Intercept | undefined;
  /** Advertise the broken aggregated API (metrics.k8s.io, 503) in `/apis`, as the tests' cluster does; the sandbox advertises only what it serves. */
  advertiseBroken = true;
  /**
   * Commit, then hold the answer: a request this returns true for is carried
   * out (the state changes, as the API server commits to etcd) but its answer
   * is not sent until `releaseHeld()` (or never, when the client is gone):
   * the window between a write's commit and its answer reaching the client.
   */
  holdAnswer?: (req: RecordedRequest) => boolean;
  /** Requests committed and held, in order; `held.length` grows as each commits. */
  readonly held: { request: RecordedRequest; release: () => void }[] = [];
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

  /** Sends every held answer (to clients still connected) and stops holding. */
  releaseHeld(): void {
    this.holdAnswer = undefined;
    for (const h of this.held.splice(0)) h.release();
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
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test-cluster', cluster: { server: this.url, 'certificate-authority': opts.caFile ?? testTls().caFile } }],
      users: [{ name: 'test-user', user: { token: opts.token ?? this.token } }],
      contexts: [{ name: context, context: { cluster: 'test-cluster', user: 'test-user', ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
      ...(opts.noCurrentContext ? {} : { 'current-context': context }),
    };
    const file = path.join(this.dir, `kubeconfig-${randomUUID()}.yaml`);
    writeFileSync(file, JSON.stringify(config, null, 2));
    return file;
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x');
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8') || undefined,
        ...(req.headersDistinct['impersonate-user'] ? { impersonateUser: req.headersDistinct['impersonate-user'].join(',') } : {}),
        impersonateGroups: req.headersDistinct['impersonate-group'] ?? [],
        ...(req.headers.accept ? { accept: req.headers.accept } : {}),
      };
      this.requests.push(rec);
      const send = (code: number, body: unknown, type = 'application/json', warnings: string[] = []) => {
        res.writeHead(code, { 'Content-Type': type, ...(warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {}) });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      // as kube-apiserver: authentication, then impersonation, then authorization of the acting user
      const who = this.rbac.acting(req);
      if (Array.isArray(who)) return send(who[0], who[1]);
      const refused = this.rbac.refusal(rec.method, rec.path, who);
      if (refused) return send(refused[0], refused[1]);
      const canned = this.intercept?.(rec);
      if (canned?.hang) return;
      if (canned) return send(canned.status ?? 200, canned.body ?? {}, undefined, canned.warnings);
      const routed = this.route(rec);
      if (!Array.isArray(routed)) return routed.stream(res);
      const [code, body, type, warnings] = routed;
      if (this.holdAnswer?.(rec)) {
        this.held.push({ request: rec, release: () => (res.destroyed ? undefined : send(code, body, type, warnings)) });
        return;
      }
      send(code, body, type, warnings);
    });
  }

  private route(r: RecordedRequest): Answer | Streamed {
    const p = r.path;
    if (this.wallClock) this.catchUp();
    if (p === '/version') return [200, { major: '1', minor: '31', gitVersion: 'v1.31.2', platform: 'linux/amd64' }];
    if (p === '/api') return [200, { kind: 'APIVersions', versions: ['v1'] }];
    if (p === '/apis') return [200, apiGroupList(this.advertiseBroken)];
    if (p === '/openapi/v2') return [200, OPENAPI_V2];
    if (p === '/openapi/v3') return [200, openApiIndex()];
    if (p.startsWith('/openapi/v3/')) {
      const doc = OPENAPI_DOCS[p.slice('/openapi/v3/'.length)];
      return doc ? [200, doc] : [404, status(404, 'NotFound', 'the server could not find the requested resource')];
    }
    const m = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(\/.*)?$/.exec(p);
    const gv = m && (m[1] ?? m[2]);
    if (!gv || !(gv in RESOURCES)) return [404, status(404, 'NotFound', 'the server could not find the requested resource')];
    if (BROKEN_GROUP_VERSIONS.has(gv) && !this.advertiseBroken) return [404, status(404, 'NotFound', 'the server could not find the requested resource')];
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
    const watching = r.method === 'GET' && ['1', 'true'].includes(r.query.get('watch') ?? '');
    if (r.method === 'GET' && this.autoTick && !this.wallClock && !watching && TICKING_KINDS.has(res.kind) && sub === undefined) this.tick();
    if (sub === 'log' && resource === 'pods') return this.podLog(namespace!, name, r.query);
    const prefix = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
    const objPath = `${prefix}${namespace ? `/namespaces/${namespace}` : ''}/${resource}/${name}`;
    const collection = `${prefix}${namespace ? `/namespaces/${namespace}` : ''}/${resource}/`;
    if (watching) {
      const query = new URLSearchParams(r.query);
      // `kubectl get NAME -w` watches the one object through the collection with a name field selector
      if (name !== undefined) query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${name}`].filter(Boolean).join(','));
      return {
        stream: (out) =>
          streamWatch(
            out,
            {
              current: () => this.matching(res.kind, collection, prefix, resource, query),
              step: () => (this.wallClock ? this.catchUp() : this.autoTick && TICKING_KINDS.has(res.kind) ? this.tick() : undefined),
              nowMs: () => this.nowMs(),
            },
            {
              kind: res.kind,
              resourceVersion: r.query.get('resourceVersion'),
              timeoutSeconds: Number(r.query.get('timeoutSeconds')) || null,
              asTable: wantsTable(r.accept),
              includeObject: r.query.get('includeObject'),
            },
          ),
      };
    }
    if (name === undefined && r.method === 'GET') return this.list(res.kind, gv, collection, prefix, resource, r);
    if (sub === 'scale' && ['Deployment', 'ReplicaSet', 'StatefulSet'].includes(res.kind))
      return scaleAnswer(this, r, { gv, kind: res.kind, resource, path: objPath, namespace, name });
    if (name === undefined && r.method === 'POST')
      return createObject(this, r, {
        gv,
        kind: res.kind,
        resource,
        namespace,
        collection: `${prefix}${namespace ? `/namespaces/${namespace}` : ''}/${resource}`,
      });
    const target = { gv, kind: res.kind, resource, path: objPath, namespace, name };
    if (r.method === 'GET' && this.objects.has(objPath) && wantsTable(r.accept))
      return [200, table(res.kind, [this.objects.get(objPath)!], this.nowMs(), r.query.get('includeObject'), { resourceVersion: this.currentVersion() })];
    if (r.method === 'GET')
      return this.objects.has(objPath)
        ? [200, this.objects.get(objPath)]
        : [404, status(404, 'NotFound', `${resource}${gv.includes('/') ? `.${gv.split('/')[0]}` : ''} "${name}" not found`)];
    if (r.method === 'DELETE') return deleteObject(this, r, target);
    if (r.method === 'PATCH') return writePatch(this, r, target);
    return [405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')];
  }

  /** The objects a list of `kind` under `pathPrefix` answers (every namespace when the prefix names none), label and field selectors applied. */
  private matching(kind: string, pathPrefix: string, apiPrefix: string, resource: string, q: URLSearchParams): Obj[] {
    // all-namespace lists match `<prefix>/namespaces/<any>/<resource>/`
    const allNs = new RegExp(`^${apiPrefix.replace(/[.]/g, '\\.')}/namespaces/[^/]+/${resource}/`);
    let items = [...this.objects]
      .filter(([k]) => k.startsWith(pathPrefix) || (!pathPrefix.includes('/namespaces/') && allNs.test(k)))
      .map(([, o]) => o)
      .filter((o) => o.kind === kind);
    for (const sel of (q.get('labelSelector') ?? '').split(',').filter(Boolean)) {
      const [k, v] = sel.split('=');
      items = items.filter((o) => o.metadata.labels?.[k] === v);
    }
    for (const sel of (q.get('fieldSelector') ?? '').split(',').filter(Boolean)) {
      const [k, v] = sel.split('=');
      items = items.filter((o) => String(k.split('.').reduce((a: Obj | undefined, part) => a?.[part], o)) === v);
    }
    return items;
  }

  private list(kind: string, gv: string, pathPrefix: string, apiPrefix: string, resource: string, r: RecordedRequest): [number, unknown] {
    const q = r.query;
    const items = this.matching(kind, pathPrefix, apiPrefix, resource, q);
    const start = Number(q.get('continue') ?? 0);
    const limit = Number(q.get('limit') ?? 500);
    const more = start + limit < items.length;
    const metadata = { resourceVersion: this.currentVersion(), ...(more ? { continue: String(start + limit) } : {}) };
    if (wantsTable(r.accept)) return [200, table(kind, items.slice(start, start + limit), this.nowMs(), q.get('includeObject'), metadata)];
    const page = items.slice(start, start + limit).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    return [200, { kind: `${kind}List`, apiVersion: gv, metadata, items: page }];
  }

  private podLog(namespace: string, pod: string, q: URLSearchParams): Answer {
    const obj = this.objects.get(`/api/v1/namespaces/${namespace}/pods/${pod}`);
    if (!obj) return [404, status(404, 'NotFound', `pods "${pod}" not found`)];
    const containers: string[] = (obj.spec?.containers ?? []).map((c: Obj) => c.name);
    const inits: string[] = (obj.spec?.initContainers ?? []).map((c: Obj) => c.name);
    const container = q.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
    if (!container)
      return [
        400,
        status(
          400,
          'BadRequest',
          `a container name must be specified for pod ${pod}, choose one of: [${containers.join(' ')}]${inits.length ? ` or one of the init containers: [${inits.join(' ')}]` : ''}`,
        ),
      ];
    if (!containers.includes(container) && !inits.includes(container))
      return [400, status(400, 'BadRequest', `container ${container} is not valid for pod ${pod}`)];
    const key = `${namespace}/${pod}/${container}`;
    const cs = [...(obj.status?.containerStatuses ?? []), ...(obj.status?.initContainerStatuses ?? [])].find((s: Obj) => s.name === container);
    const previous = q.get('previous') === 'true';
    if (previous && !cs?.lastState?.terminated)
      return [400, status(400, 'BadRequest', `previous terminated container "${container}" in pod "${pod}" not found`)];
    const waiting = cs?.state?.waiting && !cs.lastState?.terminated ? cs.state.waiting.reason : undefined;
    if (!previous && waiting) {
      const why = { ErrImagePull: "image can't be pulled", ImagePullBackOff: 'trying and failing to pull image' }[waiting as string] ?? waiting;
      return [400, status(400, 'BadRequest', `container "${container}" in pod "${pod}" is waiting to start: ${why}`)];
    }
    let text = (previous ? this.previousLogs.get(key) : this.logs.get(key)) ?? '';
    const tail = q.get('tailLines');
    if (tail)
      text = text
        .split('\n')
        .filter(Boolean)
        .slice(-Number(tail))
        .map((l) => `${l}\n`)
        .join('');
    const limit = q.get('limitBytes');
    if (limit) text = Buffer.from(text).subarray(0, Number(limit)).toString('utf8');
    return [200, text, 'text/plain'];
  }
}
