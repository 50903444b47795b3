import { versionOutput } from '../../../../domain/tools/outputs/version-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Loose = Record<string, unknown> & { status: string; system: Record<string, Record<string, unknown>> };
const valid = (): Loose => ({
  status: 'healthy',
  system: {
    version: { version: '1.2.3', nodeVersion: 'v22.0.0', platform: 'linux', arch: 'x64' },
    vectorDB: { connected: true, provider: 'qdrant', collections: { patterns: { exists: true, documentsCount: 3 } } },
    embedding: { provider: 'local', model: 'hashing', dimension: 384, kind: 'lexical', healthy: true },
    aiProvider: { configured: false, provider: 'none' },
    kubernetes: { connected: true, context: 'kind-svc', serverVersion: 'v1.31.0' },
    tracing: { enabled: false, exporter: 'none', serviceName: 'svc', status: 'disabled' },
    sharedState: { configured: false, connected: false, provider: 'memory' },
  },
});

describe('tool outputs: the version tool', () =>
  schemaCases<Loose>(
    versionOutput,
    valid,
    [
      [
        'a degraded status with the unreachable cluster named',
        (v) => ((v.status = 'degraded'), (v.system.kubernetes = { connected: false, context: 'x', error: 'ECONNREFUSED' })),
      ],
      ['a vector store field beyond the listed ones (loose)', (v) => void (v.system.vectorDB!.extra = 1)],
      ['an embedding model of unknown dimension', (v) => void (v.system.embedding!.dimension = null)],
      [
        'the clusters of SVC_CLUSTERS',
        (v) => void (v.system.clusters = [{ name: 'a', labels: { env: 'prod' }, readOnly: true, reachable: false, error: 'timeout' }] as never),
      ],
      ['the names of extra model headers', (v) => void (v.system.aiProvider!.headers = ['X-Team'])],
    ],
    [
      ['a status outside healthy and degraded', (v) => void (v.status = 'ok')],
      ['a negative document count', (v) => void (v.system.vectorDB!.collections = { patterns: { exists: true, documentsCount: -1 } })],
      ['an embedding kind outside semantic and lexical', (v) => void (v.system.embedding!.kind = 'dense')],
      ['a fractional dimension', (v) => void (v.system.embedding!.dimension = 1.5)],
      ['a structured-output mode SVC_LLM_STRUCTURED_OUTPUT does not know', (v) => void (v.system.aiProvider!.structuredOutput = 'xml')],
      ['a model header given with its value rather than its name', (v) => void (v.system.aiProvider!.headers = [{ 'X-Team': 'secret' }] as never)],
      ['no shared-state report', (v) => void delete v.system.sharedState],
      ['a cluster without its readOnly flag', (v) => void (v.system.clusters = [{ name: 'a', labels: {}, reachable: true }] as never)],
    ],
  ));
