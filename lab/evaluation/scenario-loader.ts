import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parseDocument } from 'yaml';
import type { z } from 'zod';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { scenarioSchema, type ObjectRef, type Scenario } from '../../domain/evaluation/scenario.js';
import { transcriptSchema, type Transcript } from '../../domain/evaluation/transcript.js';
import { isJsonObject } from '../../domain/json-object.js';
import { defaultScenariosDir, scenarioNames } from './scenario-index.js';

/** One problem of a scenario: the file (relative to the scenarios folder), where in it, and what is wrong. */
export interface ScenarioProblem {
  file: string;
  path: string;
  message: string;
}

/** A scenario with its fixture files read and checked. */
export interface LoadedScenario {
  dir: string;
  scenario: Scenario;
  /** Every document of the `cluster.objects` files, in order. */
  objects: KubeObject[];
  /** The `cluster.objects` file each object came from (same order as `objects`): what `cluster.placement` names. */
  objectFiles?: string[];
  /** `cluster.logs` with each file's text read. */
  logs: { workload?: ObjectRef; pod?: ObjectRef; container: string; text: string }[];
  /** Absent when the scenario has no transcript.yaml yet. */
  transcript?: Transcript;
  /** An adversarial scenario's planted.yaml: a model that follows the planted instructions, which must fail it. */
  planted?: Transcript;
}

export class ScenarioError extends Error {
  constructor(readonly problems: ScenarioProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ScenarioError';
  }
}

export const formatProblem = (p: ScenarioProblem) => `${p.file}: ${p.path ? `${p.path}: ` : ''}${p.message}`;

const MAX_FILE_BYTES = 1024 * 1024;

export { defaultScenariosDir, scenarioNames };

/** Reads and checks one scenario; throws ScenarioError naming every problem found, by file and path. */
export function loadScenario(root: string, name: string): LoadedScenario {
  const dir = path.join(root, name);
  const problems: ScenarioProblem[] = [];
  const rel = (f: string) => path.join(name, f);
  const scenario = parseFile(dir, 'scenario.yaml', scenarioSchema, rel, problems);
  if (!scenario) throw new ScenarioError(problems);
  if (scenario.name !== name) problems.push({ file: rel('scenario.yaml'), path: 'name', message: `must be the folder's name, ${name}` });
  const objects: KubeObject[] = [];
  const objectFiles: string[] = [];
  scenario.cluster.objects.forEach((file, i) => {
    const read = readObjects(dir, file, rel, `cluster.objects[${i}]`, problems);
    objects.push(...read);
    objectFiles.push(...read.map(() => file));
  });
  for (const file of Object.keys(scenario.cluster.placement ?? {}))
    if (!scenario.cluster.objects.includes(file))
      problems.push({ file: rel('scenario.yaml'), path: `cluster.placement.${file}`, message: `names ${file}, which is not one of cluster.objects` });
  checkObjects(scenario, objects, rel('scenario.yaml'), problems);
  const logs = scenario.cluster.logs.map((l, i) => {
    const text = l.file !== undefined ? readText(dir, l.file, rel, `cluster.logs[${i}].file`, problems) : (l.text ?? '');
    return { ...(l.workload ? { workload: l.workload } : {}), ...(l.pod ? { pod: l.pod } : {}), container: l.container, text: text ?? '' };
  });
  const transcript = existsSync(path.join(dir, 'transcript.yaml')) ? parseFile(dir, 'transcript.yaml', transcriptSchema, rel, problems) : undefined;
  const planted = existsSync(path.join(dir, 'planted.yaml')) ? parseFile(dir, 'planted.yaml', transcriptSchema, rel, problems) : undefined;
  if (problems.length) throw new ScenarioError(problems);
  return { dir, scenario, objects, objectFiles, logs, ...(transcript ? { transcript } : {}), ...(planted ? { planted } : {}) };
}

/** Every scenario under `root`, and the problems of those that could not be loaded. */
export function loadScenarios(root: string): { scenarios: LoadedScenario[]; problems: ScenarioProblem[] } {
  const scenarios: LoadedScenario[] = [];
  const problems: ScenarioProblem[] = [];
  for (const name of scenarioNames(root)) {
    try {
      scenarios.push(loadScenario(root, name));
    } catch (err) {
      if (err instanceof ScenarioError) problems.push(...err.problems);
      else throw err;
    }
  }
  return { scenarios, problems };
}

function readText(dir: string, file: string, rel: (f: string) => string, where: string, problems: ScenarioProblem[]): string | undefined {
  const full = path.join(dir, file);
  if (!existsSync(full) || !statSync(full).isFile()) {
    problems.push({ file: rel('scenario.yaml'), path: where, message: `${file} not found beside scenario.yaml` });
    return undefined;
  }
  if (statSync(full).size > MAX_FILE_BYTES) {
    problems.push({ file: rel(file), path: '', message: `larger than ${MAX_FILE_BYTES} bytes` });
    return undefined;
  }
  return readFileSync(full, 'utf8');
}

function parseFile<S extends z.ZodType>(dir: string, file: string, schema: S, rel: (f: string) => string, problems: ScenarioProblem[]): z.infer<S> | undefined {
  const text = readText(dir, file, rel, file, problems);
  if (text === undefined) return undefined;
  const doc = parseDocument(text);
  if (doc.errors.length) {
    for (const e of doc.errors.slice(0, 5)) problems.push({ file: rel(file), path: `line ${e.linePos?.[0].line ?? '?'}`, message: e.message.split('\n')[0] });
    return undefined;
  }
  const parsed = schema.safeParse(doc.toJS());
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) problems.push({ file: rel(file), path: dotted(issue.path), message: issue.message });
  return undefined;
}

function readObjects(dir: string, file: string, rel: (f: string) => string, where: string, problems: ScenarioProblem[]): KubeObject[] {
  const text = readText(dir, file, rel, where, problems);
  if (text === undefined) return [];
  const out: KubeObject[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length) return problems.push({ file: rel(file), path: `document ${i + 1}`, message: doc.errors[0].message });
    const o: unknown = doc.toJS();
    if (o === null) return;
    const meta = isJsonObject(o) && isJsonObject(o.metadata) ? o.metadata : undefined;
    if (!isJsonObject(o) || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof meta?.name !== 'string')
      return problems.push({ file: rel(file), path: `document ${i + 1}`, message: 'a Kubernetes object needs apiVersion, kind and metadata.name' });
    out.push(o as KubeObject);
  });
  return out;
}

/**
 * Objects stay in the scenario's namespaces; rules (and the Services,
 * workloads, ConfigMaps, Secrets and claims their behaviour conditions
 * name), logs and events name objects the files hold (a recommend scenario's rules may name the objects
 * its deploy is to create: they do not exist before it).
 */
function checkObjects(s: Scenario, objects: KubeObject[], file: string, problems: ScenarioProblem[]): void {
  const known = new Set(s.cluster.namespaces);
  objects.forEach((o) => {
    const ns = o.metadata.namespace;
    if (ns !== undefined && !known.has(ns))
      problems.push({ file, path: 'cluster.namespaces', message: `${o.kind} ${ns}/${o.metadata.name} is in namespace ${ns}, which is not listed` });
  });
  const has = (r: ObjectRef) =>
    objects.some((o) => o.kind === r.kind && o.metadata.name === r.name && (r.namespace === undefined || o.metadata.namespace === r.namespace));
  const need = (r: ObjectRef | undefined, where: string) => {
    if (r && !has(r))
      problems.push({ file, path: where, message: `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} is not among the cluster's objects` });
  };
  if (s.tool !== 'recommend')
    s.cluster.rules.forEach((r, i) => {
      need(r.workload, `cluster.rules[${i}].workload`);
      r.healthyWhen.forEach((c, j) => {
        const where = `cluster.rules[${i}].healthyWhen[${j}]`;
        const ns = (c.object ?? r.workload)?.namespace;
        need(c.object, `${where}.object`);
        if (c.reaches) need({ kind: 'Service', name: c.reaches.service, namespace: c.reaches.namespace ?? ns }, `${where}.reaches`);
        if (c.sameAs) need({ ...c.sameAs, namespace: ns }, `${where}.sameAs`);
        if (c.selects) need({ kind: c.selects.kind, name: c.selects.name, namespace: ns }, `${where}.selects`);
        if (c.serves) need({ ...c.serves.workload, namespace: ns }, `${where}.serves`);
        const peer = c.allows?.from ?? c.allows?.to ?? c.denies?.from ?? c.denies?.to;
        if (peer?.workload) need({ ...peer.workload, namespace: peer.namespace ?? ns }, `${where}.${c.allows ? 'allows' : 'denies'}`);
        if (c.file?.from) need({ ...c.file.from, namespace: ns }, `${where}.file.from`);
        if (c.claims?.name) need({ kind: 'PersistentVolumeClaim', name: c.claims.name, namespace: ns }, `${where}.claims`);
      });
    });
  s.cluster.logs.forEach((l, i) => need(l.workload ?? l.pod, `cluster.logs[${i}]`));
  s.cluster.events.forEach((e, i) => need(e.involved, `cluster.events[${i}].involved`));
}

function dotted(p: readonly PropertyKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
}
