import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { apiGroupList } from '../../lab/sandbox/kube/kube-fixtures.js';
import type { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { QdrantServer } from './qdrant-server.js';
import { auth } from './test-app.js';
import { TEST_DATA_DIR } from './test-app.js';

/** Where the org data lives in an HTTP test: the embedded store (default) or Qdrant on the wire-faithful server. */
export interface StoreBackend {
  name: string;
  /** Env for one app: a fresh data dir, and QDRANT_URL for Qdrant. `dataDir` reuses one (a restart). */
  env(dataDir?: string): Record<string, string>;
  before(): Promise<void>;
  after(): Promise<void>;
}

/** A fresh SVC_DATA_DIR (under the suite's temp dir): tests never share collections with each other. */
export function freshDataDir(): string {
  return mkdtempSync(path.join(TEST_DATA_DIR, 'orgdata-'));
}

export function embeddedBackend(): StoreBackend {
  return {
    name: 'embedded store',
    env: (dataDir) => ({ SVC_DATA_DIR: dataDir ?? freshDataDir() }),
    before: async () => undefined,
    after: async () => undefined,
  };
}

export function qdrantBackend(): StoreBackend {
  let server: QdrantServer | undefined;
  return {
    name: 'Qdrant adapter',
    env: (dataDir) => ({ SVC_DATA_DIR: dataDir ?? freshDataDir(), QDRANT_URL: server!.url }),
    // a fresh server per test: collections never leak between tests
    before: async () => {
      server = await new QdrantServer().start();
    },
    after: async () => {
      await server?.stop();
    },
  };
}

type Body = Record<string, unknown>;

export function orgData(app: Express, body: Body): request.Test {
  return request(app).post('/api/v1/tools/manageOrgData').set(auth).send(body);
}

/** The result of a call that must succeed. */
export async function ok(app: Express, body: Body): Promise<any> {
  const res = await orgData(app, body);
  if (res.status !== 200) throw new Error(`${JSON.stringify(body).slice(0, 200)} answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.body.data.result;
}

/** Polls `progress` until the scan completes (or `until` holds). */
export async function waitForScan(app: Express, until: (p: any) => boolean = (p) => p?.status === 'completed', timeoutMs = 15000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { progress } = await ok(app, { dataType: 'capabilities', operation: 'progress' });
    if (until(progress)) return progress;
    if (Date.now() > deadline) throw new Error(`scan did not get there in time: ${JSON.stringify(progress)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const EXTRA_KINDS = ['Database', 'Cache', 'Queue', 'Bucket', 'Certificate'];

/**
 * Makes the Kubernetes stand-in serve five more kinds (a CRD group with no
 * published schema), through its intercept hook, besides its own twenty-three.
 */
export function serveDozenKinds(kube: KubeApiServer): void {
  const gv = 'extra.example.com/v1';
  kube.intercept = (req) => {
    if (req.path === '/apis') {
      const list = apiGroupList();
      list.groups.push({ name: 'extra.example.com', versions: [{ groupVersion: gv, version: 'v1' }], preferredVersion: { groupVersion: gv, version: 'v1' } });
      return { body: list };
    }
    if (req.path === `/apis/${gv}`) {
      return {
        body: {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: gv,
          resources: EXTRA_KINDS.map((kind) => ({
            name: `${kind.toLowerCase()}s`,
            singularName: kind.toLowerCase(),
            kind,
            namespaced: true,
            verbs: ['get', 'list', 'create'],
          })),
        },
      };
    }
    return undefined;
  };
}

/** The kind a capability-analysis chat request is about. */
export function requestedKind(body: { messages?: { content?: string | null }[] }): string {
  const text = (body.messages ?? []).map((m) => m.content ?? '').join('\n');
  return /"kind":"([A-Za-z0-9]+)"/.exec(text)?.[1] ?? 'unknown';
}

export function analysisJson(kind: string): string {
  return JSON.stringify({
    capabilities: [`${kind} provisioning`, `${kind.toLowerCase()} lifecycle management`],
    providers: ['kubernetes'],
    complexity: 'medium',
    useCases: [`teams that need a ${kind.toLowerCase()}`],
    description: `${kind} resources managed in the cluster.`,
    confidence: 0.7,
  });
}
