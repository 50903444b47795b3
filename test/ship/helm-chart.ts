import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { TemplateSet } from './go-template.js';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
};

export interface ChartRender {
  /** Rendered objects, in template file order. */
  objects: Manifest[];
  /** Text of each rendered file, for failures worth reading. */
  files: Record<string, string>;
  values: Record<string, unknown>;
  /** templates/NOTES.txt as Helm prints it after an install. */
  notes?: string;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Helm's coalescing: maps merge key by key, anything else replaces, null deletes a default. */
export function mergeValues(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else out[k] = isMap(v) && isMap(out[k]) ? mergeValues(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/**
 * `helm template` for charts/svc without helm: values.yaml merged with
 * `overrides`, every template rendered, documents parsed; NOTES.txt
 * rendered as text. The chart has no dependencies (chart.test.ts checks it
 * against Helm's rules for them).
 */
export function renderChart(chartDir: string, overrides: Record<string, unknown> = {}, release = { Name: 'rel', Namespace: 'tools' }): ChartRender {
  const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, string>;
  const values = mergeValues(parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>, overrides);
  const set = new TemplateSet();
  const dir = path.join(chartDir, 'templates');
  const names = readdirSync(dir)
    .filter((f) => /\.(ya?ml|tpl)$/.test(f))
    .sort();
  for (const name of names) set.add(name, readFileSync(path.join(dir, name), 'utf8'));
  const hasNotes = readdirSync(dir).includes('NOTES.txt');
  if (hasNotes) set.add('NOTES.txt', readFileSync(path.join(dir, 'NOTES.txt'), 'utf8'));
  const data = {
    Values: values,
    Release: { ...release, Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Capabilities: { KubeVersion: { Version: 'v1.31.0' } },
  };
  const files: Record<string, string> = {};
  const objects: Manifest[] = [];
  for (const name of names.filter((n) => !n.startsWith('_'))) {
    const text = set.render(name, data);
    files[name] = text;
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length) throw new Error(`${name}: ${doc.errors[0].message}\n${text}`);
      const obj = doc.toJS() as Manifest | null;
      if (obj) objects.push(obj);
    }
  }
  // NOTES.txt is text Helm prints after an install, never a manifest
  return { objects, files, values, notes: hasNotes ? set.render('NOTES.txt', data) : undefined };
}
