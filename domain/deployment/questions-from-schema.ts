import type { AnswerValue, Question, QuestionSet, QuestionStage } from './question.js';
import { emptyQuestionSet, OPEN_QUESTION } from './question.js';
import { isRequiredField, scalarProperties, schemaAt, shortDescription, type JsonSchema } from './schema-field.js';

/** A field worth asking about for a well-known kind; the question exists only when the cluster's schema has the field. */
interface KnownField {
  id: string;
  field: string;
  stage: QuestionStage;
  text: string;
  default?: AnswerValue;
  pattern?: string;
}

const QUANTITY = '[0-9]+(\\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?';
const CONTAINERS = 'spec.template.spec.containers[]';
const workload = (defaultReplicas: number): KnownField[] => [
  { id: 'image', field: `${CONTAINERS}.image`, stage: 'required', text: 'Container image to run (for example postgres:16)' },
  { id: 'replicas', field: 'spec.replicas', stage: 'basic', text: 'How many replicas', default: defaultReplicas },
  { id: 'port', field: `${CONTAINERS}.ports[].containerPort`, stage: 'basic', text: 'Port the container listens on' },
  {
    id: 'memory-limit',
    field: `${CONTAINERS}.resources.limits.memory`,
    stage: 'advanced',
    text: 'Memory limit of the container (for example 512Mi)',
    pattern: QUANTITY,
  },
  {
    id: 'cpu-request',
    field: `${CONTAINERS}.resources.requests.cpu`,
    stage: 'advanced',
    text: 'CPU request of the container (for example 250m)',
    pattern: QUANTITY,
  },
];

const KNOWN: Record<string, KnownField[]> = {
  Deployment: [...workload(1), { id: 'strategy', field: 'spec.strategy.type', stage: 'advanced', text: 'How pods are replaced on an update' }],
  StatefulSet: [
    ...workload(1),
    {
      id: 'storage',
      field: 'spec.volumeClaimTemplates[].spec.resources.requests.storage',
      stage: 'basic',
      text: 'Storage size per replica (for example 10Gi)',
      default: '1Gi',
      pattern: QUANTITY,
    },
    { id: 'pod-management', field: 'spec.podManagementPolicy', stage: 'advanced', text: 'How pods are started and stopped' },
  ],
  Service: [
    { id: 'type', field: 'spec.type', stage: 'basic', text: 'How the service is exposed', default: 'ClusterIP' },
    { id: 'port', field: 'spec.ports[].port', stage: 'basic', text: 'Port the service exposes' },
  ],
  PersistentVolumeClaim: [
    { id: 'storage', field: 'spec.resources.requests.storage', stage: 'required', text: 'Storage size (for example 10Gi)', default: '1Gi', pattern: QUANTITY },
    { id: 'storage-class', field: 'spec.storageClassName', stage: 'advanced', text: 'Storage class (empty: the cluster default)' },
  ],
  CronJob: [
    {
      id: 'schedule',
      field: 'spec.schedule',
      stage: 'required',
      text: 'When the job runs, in cron format (for example "0 2 * * *" for 02:00 every night)',
      pattern: '\\S+( \\S+){4}|@(yearly|annually|monthly|weekly|daily|midnight|hourly)',
    },
    { id: 'image', field: 'spec.jobTemplate.spec.template.spec.containers[].image', stage: 'required', text: 'Container image the job runs' },
    { id: 'concurrency', field: 'spec.concurrencyPolicy', stage: 'advanced', text: 'What to do when a run is still going at the next schedule' },
  ],
};

/** Fields of a kind this module knows nothing about (a CRD): scalar fields of `spec` and one level below. */
const GENERIC_LIMIT = 10;

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

/** A default object name from the intent: its first words as a DNS label. */
export function nameFromIntent(intent: string): string {
  const words = intent.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const name = words.slice(0, 3).join('-').slice(0, 40).replace(/-+$/, '');
  return /^[a-z]/.test(name) ? name : `app${name ? `-${name}` : ''}`.slice(0, 40).replace(/-+$/, '');
}

function questionOf(
  kind: string,
  id: string,
  field: string,
  node: JsonSchema,
  stage: QuestionStage,
  text: string,
  extra: { default?: AnswerValue; pattern?: string; required?: boolean },
): Question {
  const type = Array.isArray(node.enum) ? 'select' : node.type === 'integer' || node.type === 'number' || node.type === 'boolean' ? node.type : 'string';
  const about = shortDescription(node);
  const validation: Question['validation'] = {
    ...(Array.isArray(node.enum) ? { enum: node.enum as (string | number | boolean)[] } : {}),
    ...(typeof node.pattern === 'string' ? { pattern: node.pattern.replace(/^\^|\$$/g, '') } : extra.pattern ? { pattern: extra.pattern } : {}),
    ...(typeof node.minimum === 'number' ? { minimum: node.minimum } : {}),
    ...(typeof node.maximum === 'number' ? { maximum: node.maximum } : {}),
    ...(extra.required || stage === 'required' ? { required: true } : {}),
  };
  const suggested = extra.default ?? (['string', 'number', 'integer', 'boolean'].includes(typeof node.default) ? (node.default as AnswerValue) : undefined);
  return {
    id: `${kind.toLowerCase()}-${id}`,
    text: about && about !== text ? `${text}. ${about}` : text,
    type,
    stage,
    validation,
    ...(suggested !== undefined ? { default: suggested } : {}),
    target: { kind, field },
  };
}

function genericQuestions(kind: string, schema: JsonSchema): Question[] {
  const out: Question[] = [];
  const visit = (prefix: string, depth: number) => {
    const node = schemaAt(schema, prefix);
    for (const [name, prop] of scalarProperties(node)) {
      if (out.length >= GENERIC_LIMIT) return;
      const field = `${prefix}.${name}`;
      const required = isRequiredField(schema, field);
      const stage: QuestionStage = required
        ? 'required'
        : prop.enum || prop.minimum !== undefined || prop.maximum !== undefined || prop.pattern
          ? 'basic'
          : 'advanced';
      out.push(questionOf(kind, field.replace(/^spec\./, '').replace(/\./g, '-'), field, prop, stage, `${kind} ${field}`, { required }));
    }
    if (depth === 0) {
      const props = (node?.properties ?? {}) as Record<string, unknown>;
      for (const name of Object.keys(props)) if (schemaAt(schema, `${prefix}.${name}`)?.type === 'object') visit(`${prefix}.${name}`, 1);
    }
  };
  visit('spec', 0);
  return out;
}

/**
 * The configuration questions of a solution, from the real schemas of its
 * resources: name and namespace first, then the fields of each kind that the
 * cluster's schema has (a kind without a published schema asks nothing more).
 */
export function questionsFromSchemas(intent: string, resources: { kind: string; namespaced: boolean; schema: JsonSchema | null }[]): QuestionSet {
  const set = emptyQuestionSet();
  set.required.push({
    id: 'name',
    text: 'Name of the application (a DNS label; objects are named after it)',
    type: 'string',
    stage: 'required',
    validation: { pattern: '[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?', required: true },
    default: nameFromIntent(intent),
  });
  if (resources.some((r) => r.namespaced)) {
    set.required.push({
      id: 'namespace',
      text: 'Namespace to deploy into (it must exist)',
      type: 'string',
      stage: 'required',
      validation: { pattern: DNS_LABEL, required: true },
      default: 'default',
    });
  }
  const seen = new Set<string>(set.required.map((q) => q.id));
  for (const r of resources) {
    if (!r.schema) continue;
    const questions = KNOWN[r.kind]
      ? KNOWN[r.kind].flatMap((k) => {
          const node = schemaAt(r.schema!, k.field);
          return node ? [questionOf(r.kind, k.id, k.field, node, k.stage, k.text, k)] : [];
        })
      : genericQuestions(r.kind, r.schema);
    for (const q of questions) {
      if (seen.has(q.id)) continue;
      seen.add(q.id);
      set[q.stage].push(q);
    }
  }
  set.open.push(OPEN_QUESTION);
  return set;
}
