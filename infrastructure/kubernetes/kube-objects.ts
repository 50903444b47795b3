import type {
  ApplyOptions,
  CreateOptions,
  ClusterEvent,
  EventQuery,
  KubeObject,
  ListQuery,
  ListResult,
  LogQuery,
  PatchBody,
  PatchOptions,
  ResourceRef,
  WritePreconditions,
} from '../../domain/cluster/kube-types.js';
import { patchTypeFor } from '../../domain/cluster/patch-type.js';
import { applyBody, createBody, deleteBody, patchBody } from '../../domain/cluster/write-bodies.js';
import { KubeStatusError } from './kube-errors.js';
import { apiPathPrefix, type KubeDiscovery } from './kube-discovery.js';
import { byTime, noteRead, viewEvent, viewObject } from './kube-object-view.js';
import type { KubeTransport } from './kube-transport.js';

const DEFAULT_FIELD_MANAGER = 'svc';
const APPLY_PATCH = 'application/apply-patch+yaml';
const PATCH_CONTENT_TYPES = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;
/** Every apply and patch: an unknown field is refused, never dropped (the server's default, Warn, drops it). */
const STRICT = 'Strict';

/** A write's answer: the object and the server's warnings. */
export interface Written {
  object: KubeObject;
  warnings: string[];
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/**
 * The API calls on objects, already validated by the caller: paths from
 * discovery, plain JSON in and out, 404 turned into absence where the port
 * says so. Errors leave as KubeStatusError for the client to map.
 */
export class KubeObjects {
  constructor(
    private readonly transport: KubeTransport,
    private readonly discovery: KubeDiscovery,
    private readonly defaultNamespace: () => string,
  ) {}

  async read(ref: ResourceRef): Promise<KubeObject | null> {
    try {
      const raw = await this.transport.json({ method: 'GET', path: await this.path(ref) });
      noteRead(raw);
      return viewObject(raw);
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 404) return null;
      throw e;
    }
  }

  async list(query: ListQuery): Promise<ListResult> {
    const info = await this.discovery.resolve(query.apiVersion, query.kind);
    const ns = info.namespaced && query.namespace ? `/namespaces/${enc(query.namespace)}` : '';
    const res = await this.transport.json<{ items?: unknown[]; metadata?: { continue?: string } }>({
      method: 'GET',
      path: `${apiPathPrefix(info.apiVersion)}${ns}/${info.resource}`,
      query: { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector, limit: query.limit ?? 100, continue: query.continueToken },
    });
    // list items carry no apiVersion/kind of their own
    noteRead({ items: (res.items ?? []).map((i) => ({ apiVersion: info.apiVersion, kind: info.kind, ...(i as object) })) });
    const items = (res.items ?? []).map((i) => viewObject({ apiVersion: info.apiVersion, kind: info.kind, ...(i as object) }));
    return { items, ...(res.metadata?.continue ? { continueToken: res.metadata.continue } : {}) };
  }

  async events(query: EventQuery): Promise<ClusterEvent[]> {
    const selector = query.involvedObject ? `involvedObject.kind=${query.involvedObject.kind},involvedObject.name=${query.involvedObject.name}` : undefined;
    const res = await this.transport.json<{ items?: unknown[] }>({
      method: 'GET',
      path: query.namespace ? `/api/v1/namespaces/${enc(query.namespace)}/events` : '/api/v1/events',
      query: { fieldSelector: selector, limit: query.limit ?? 100 },
    });
    return (res.items ?? []).map((e) => viewEvent(e as Parameters<typeof viewEvent>[0])).sort(byTime);
  }

  async logs(query: LogQuery, limitBytes: number): Promise<string> {
    try {
      return await this.transport.text(
        {
          method: 'GET',
          path: `/api/v1/namespaces/${enc(query.namespace)}/pods/${enc(query.pod)}/log`,
          query: {
            container: query.container,
            tailLines: query.tailLines,
            sinceSeconds: query.sinceSeconds,
            previous: query.previous || undefined,
            limitBytes,
          },
          // the server honours limitBytes; the margin only guards against one that does not
          maxBytes: limitBytes + 65536,
        },
        'text/plain',
      );
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 404) {
        throw new KubeStatusError(404, { ...e.status, message: `pod ${query.namespace}/${query.pod} not found (${e.status.message})` });
      }
      throw e;
    }
  }

  /** Server-side apply; with `dryRun` nothing is persisted. `resourceVersion` goes into the manifest: the server's precondition. */
  async apply(manifest: KubeObject, options: ApplyOptions, dryRun: boolean): Promise<Written> {
    const body = applyBody(manifest, options.resourceVersion);
    const { body: result, warnings } = await this.transport.jsonWithWarnings({
      method: 'PATCH',
      path: await this.path(refOf(manifest), true),
      query: {
        fieldManager: options.fieldManager ?? DEFAULT_FIELD_MANAGER,
        force: options.force || undefined,
        dryRun: dryRun ? 'All' : undefined,
        fieldValidation: STRICT,
      },
      // JSON is YAML, so the apply-patch content type takes the manifest as is
      body,
      contentType: APPLY_PATCH,
    });
    return { object: viewObject(result), warnings };
  }

  /**
   * A create: POST to the object's collection; with `dryRun` nothing is
   * persisted. An object of that name already there is the server's 409
   * AlreadyExists (a KubeStatusError): nothing is overwritten.
   */
  async create(manifest: KubeObject, options: CreateOptions, dryRun: boolean): Promise<Written> {
    const path = await this.path(refOf(manifest), true);
    const { body: result, warnings } = await this.transport.jsonWithWarnings({
      method: 'POST',
      path: path.slice(0, path.lastIndexOf('/')),
      query: { fieldManager: options.fieldManager ?? DEFAULT_FIELD_MANAGER, dryRun: dryRun ? 'All' : undefined, fieldValidation: STRICT },
      body: createBody(manifest),
    });
    return { object: viewObject(result), warnings };
  }

  /**
   * A strategic merge, JSON merge or JSON patch; with `dryRun` nothing is
   * persisted. `resourceVersion` is set in the patched object (a JSON Patch
   * gets a replace op for it): the server then answers 409 when the object changed.
   */
  async patch(ref: ResourceRef, patch: PatchBody, options: PatchOptions, dryRun: boolean): Promise<Written> {
    const type = options.patchType ?? patchTypeFor(ref.apiVersion, patch);
    const body = patchBody(patch, options.resourceVersion);
    const { body: result, warnings } = await this.transport.jsonWithWarnings({
      method: 'PATCH',
      path: await this.path(ref, true),
      query: { fieldManager: DEFAULT_FIELD_MANAGER, dryRun: dryRun ? 'All' : undefined, fieldValidation: STRICT },
      body,
      contentType: PATCH_CONTENT_TYPES[type],
    });
    return { object: viewObject(result), warnings };
  }

  /** false when the object did not exist. */
  async delete(ref: ResourceRef, options: WritePreconditions): Promise<boolean> {
    try {
      await this.transport.json({
        method: 'DELETE',
        path: await this.path(ref, true),
        query: { propagationPolicy: 'Background' },
        body: deleteBody(options.resourceVersion, options.uid),
      });
      return true;
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 404) return false;
      throw e;
    }
  }

  /** A server-side dry-run delete: the server answers with the object it would delete (404 when absent, left to the caller). */
  async dryRunDelete(ref: ResourceRef, options: WritePreconditions): Promise<KubeObject> {
    const result = await this.transport.json({
      method: 'DELETE',
      path: await this.path(ref, true),
      query: { propagationPolicy: 'Background', dryRun: 'All' },
      body: deleteBody(options.resourceVersion, options.uid),
    });
    return viewObject(result);
  }

  /**
   * The object's API path. A read without a namespace uses the context's; a
   * write never does: a namespaced kind without one is refused (400), so a
   * change lands only where it says it does.
   */
  private async path(ref: ResourceRef, write = false): Promise<string> {
    const info = await this.discovery.resolve(ref.apiVersion, ref.kind);
    if (write && info.namespaced && !ref.namespace)
      throw new KubeStatusError(400, {
        reason: 'BadRequest',
        message: `${info.kind} is namespaced: name its namespace (svc never writes to the kubeconfig context's default namespace)`,
        causes: [{ field: 'metadata.namespace', message: 'Required value' }],
      });
    const ns = info.namespaced ? `/namespaces/${enc(ref.namespace ?? this.defaultNamespace())}` : '';
    return `${apiPathPrefix(info.apiVersion)}${ns}/${info.resource}/${enc(ref.name)}`;
  }
}

export function refOf(m: KubeObject): ResourceRef {
  return { apiVersion: m.apiVersion, kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace };
}
