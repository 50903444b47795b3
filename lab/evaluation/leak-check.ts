import { isJsonObject } from '../../domain/json-object.js';
import type { LoadedScenario } from './scenario-loader.js';
import type { SentRequest } from './transcript-llm.js';

/** Shorter values are too likely to appear by chance (`true`, `admin`). */
const MIN_SECRET_CHARS = 6;

/** Every Secret value of the scenario's cluster (data decoded, and as stored; stringData) and its neverSent strings, by a name that does not reveal them. */
export function secretValues(loaded: LoadedScenario): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const o of loaded.objects.filter((x) => x.kind === 'Secret')) {
    const where = `Secret ${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
    for (const [field, decode] of [
      ['data', true],
      ['stringData', false],
    ] as const) {
      const values = isJsonObject(o[field]) ? o[field] : {};
      for (const [key, v] of Object.entries(values)) {
        if (typeof v !== 'string') continue;
        const plain = decode ? Buffer.from(v, 'base64').toString('utf8') : v;
        for (const value of new Set([plain, v])) if (value.length >= MIN_SECRET_CHARS) out.push({ name: `${where} key ${key}`, value });
      }
    }
  }
  loaded.scenario.expect.neverSent.forEach((value, i) => out.push({ name: `expect.neverSent[${i}]`, value }));
  return out;
}

/** The names of the secret values some model request carried. */
export function leakedSecrets(loaded: LoadedScenario, sent: readonly SentRequest[]): string[] {
  const leaked = new Set<string>();
  for (const { name, value } of secretValues(loaded)) if (sent.some((r) => r.text.includes(value))) leaked.add(name);
  return [...leaked];
}
