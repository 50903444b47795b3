import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';

/**
 * A runnable example of the docs: `<!-- runnable -->` (or `<!-- runnable: name -->`,
 * the name choosing a scripted model and cluster set-up) right before a fenced
 * block holding one request, followed by a fenced block holding its answer.
 * A request is a `curl` command, an `svc` command, or an MCP JSON-RPC message
 * (sent to `POST /mcp`).
 */
export interface DocExample {
  file: string;
  line: number;
  name?: string;
  request: string;
  answer: string;
  /** The info string of the answer's fence (`json`, `text`). */
  answerLang: string;
}

const MARK = /^<!--\s*runnable(?::\s*([\w-]+))?\s*-->\s*$/;

/** README.md and every docs/*.md, relative to the project root. */
export function docFiles(): string[] {
  const root = projectRoot();
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** The fenced block starting at or after `from` (blank lines skipped): its info string, body and the line after it. */
function fenceAt(lines: string[], from: number): { lang: string; body: string; next: number } | undefined {
  let i = from;
  while (i < lines.length && lines[i].trim() === '') i++;
  const open = /^(`{3,})(\S*)/.exec(lines[i] ?? '');
  if (!open) return undefined;
  const end = lines.findIndex((l, j) => j > i && l.startsWith(open[1]));
  if (end === -1) return undefined;
  return { lang: open[2], body: lines.slice(i + 1, end).join('\n'), next: end + 1 };
}

export function examplesOf(file: string): DocExample[] {
  const lines = readFileSync(path.join(projectRoot(), file), 'utf8').split('\n');
  const out: DocExample[] = [];
  lines.forEach((l, i) => {
    const m = MARK.exec(l);
    if (!m) return;
    const request = fenceAt(lines, i + 1);
    const answer = request && fenceAt(lines, request.next);
    if (!request || !answer) throw new Error(`${file}:${i + 1}: a runnable mark needs a request block and an answer block right after it`);
    out.push({ file, line: i + 1, name: m[1], request: request.body, answer: answer.body, answerLang: answer.lang });
  });
  return out;
}

export interface ParsedCurl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Shell words of one command (quotes, backslash-newline continuations, `$VAR` from `env`); no shell runs. */
export function shellWords(command: string, env: Record<string, string>): string[] {
  const text = command.replace(/\\\n/g, ' ');
  const words: string[] = [];
  let word = '';
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end);
      i = end;
      started = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; text[j] !== '"'; j++) word += text[j] === '$' ? '\0' : text[j];
      word = word.replace(/\0\{?(\w+)\}?/g, (_m, v: string) => env[v] ?? '');
      i = j;
      started = true;
    } else if (c === '$') {
      const v = /^\$\{?(\w+)\}?/.exec(text.slice(i))!;
      word += env[v[1]] ?? '';
      i += v[0].length - 1;
      started = true;
    } else if (c === '#' && !started) {
      break;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

/** A curl command line as a request: -X, -H, -d/--data/--data-raw, the URL; -s and -i are ignored. */
export function parseCurl(command: string, env: Record<string, string>): ParsedCurl {
  const words = shellWords(command, env);
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method: string | undefined;
  let url = '';
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === '-X' || w === '--request') method = words[++i];
    else if (w === '-H' || w === '--header') {
      const h = words[++i];
      const colon = h.indexOf(':');
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (w === '-d' || w === '--data' || w === '--data-raw') body = words[++i];
    else if (w === '-s' || w === '-sS' || w === '--silent') continue;
    else if (w.startsWith('-')) throw new Error(`curl option the examples do not support: ${w}`);
    else url = w;
  }
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/x-www-form-urlencoded';
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

const ID = /\b(?:rem|opr|sol|scan)_[0-9a-f]{32}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;
/** Keys whose values are ids or times: compared by presence only. */
const IGNORED_KEY = /^(?:requestId|timestamp|executionTime|checkedAt|startedAt|finishedAt|createdAt|updatedAt|expiresAt|durationMs|.*Ms)$/;

export function normalise(s: string): string {
  return s.replace(ID, '<id>').replace(TIME, '<time>');
}

/**
 * Differences between the answer a doc shows and the real one: `"..."` as a
 * value matches anything, a string ending in `...` the real one's start, a
 * `"...": "..."` member allows members not shown,
 * a last array element `"..."` allows more elements; ids and times are
 * compared as placeholders, and id or time fields by presence only.
 */
export function jsonDifferences(shown: unknown, real: unknown, at = '$'): string[] {
  if (shown === '...') return [];
  // a string that ends in "..." shows the start of the real one
  if (typeof shown === 'string' && shown.endsWith('...') && typeof real === 'string' && normalise(real).startsWith(normalise(shown.slice(0, -3)))) return [];
  if (typeof shown === 'string') {
    return typeof real === 'string' && normalise(shown) === normalise(real) ? [] : [`${at}: shown ${JSON.stringify(shown)}, real ${JSON.stringify(real)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(real)) return [`${at}: shown an array, real ${JSON.stringify(real)}`];
    const open = shown.at(-1) === '...';
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? real.length < items.length : real.length !== items.length) return [`${at}: shown ${items.length}${open ? '+' : ''} items, real ${real.length}`];
    return items.flatMap((s, i) => jsonDifferences(s, real[i], `${at}[${i}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (real === null || typeof real !== 'object' || Array.isArray(real)) return [`${at}: shown an object, real ${JSON.stringify(real)}`];
    const s = shown as Record<string, unknown>;
    const r = real as Record<string, unknown>;
    const out: string[] = [];
    if (!('...' in s)) for (const k of Object.keys(r)) if (!(k in s)) out.push(`${at}.${k}: in the real answer, not shown`);
    for (const [k, v] of Object.entries(s)) {
      if (k === '...') continue;
      if (!(k in r)) out.push(`${at}.${k}: shown, not in the real answer`);
      else if (!IGNORED_KEY.test(k)) out.push(...jsonDifferences(v, r[k], `${at}.${k}`));
    }
    return out;
  }
  return shown === real ? [] : [`${at}: shown ${JSON.stringify(shown)}, real ${JSON.stringify(real)}`];
}

/** Differences between shown and real text output: a line `...` matches any lines; ids and times as placeholders. */
export function textDifferences(shown: string, real: string): string[] {
  const s = normalise(shown).trimEnd().split('\n');
  const r = normalise(real).trimEnd().split('\n');
  const match = (i: number, j: number): boolean => {
    if (i === s.length) return j === r.length;
    if (s[i] === '...') return match(i + 1, j) || (j < r.length && match(i, j + 1));
    return j < r.length && s[i].trimEnd() === r[j].trimEnd() && match(i + 1, j + 1);
  };
  return match(0, 0) ? [] : [`shown:\n${shown}\nreal:\n${real}`];
}
