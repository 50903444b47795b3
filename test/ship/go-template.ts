import { stringify } from 'yaml';

/**
 * A deterministic renderer for the subset of Go templates (text/template plus
 * the Sprig functions Helm adds) that charts/svc uses: `{{ }}` with `{{-`/`-}}`
 * trimming and comments, fields (`.Values.a.b`, `$`), literals, pipelines,
 * parentheses, if / else if / else, with, range, define / include, and the
 * functions in FUNCTIONS. Anything else is an error, never a silent guess, and
 * a field missing from the values is an error too (a typo in a template fails
 * the test instead of rendering empty). No helm binary installs here.
 */

type Value = unknown;
type Tok = { k: 'str' | 'num' | 'ident' | 'field' | 'var' | 'lp' | 'rp' | 'pipe'; v: string };
type Operand =
  { k: 'lit'; v: Value } | { k: 'field'; base: 'dot' | 'root'; path: string[] } | { k: 'call'; fn: string; args: Operand[] } | { k: 'pipe'; p: Pipeline };
type Pipeline = Operand[][]; // commands; each command is operands, the first may be a function name
type Node =
  | { t: 'text'; s: string }
  | { t: 'out'; p: Pipeline }
  | { t: 'if'; branches: { cond?: Pipeline; body: Node[] }[] }
  | { t: 'with' | 'range'; p: Pipeline; body: Node[]; orElse: Node[] };

export class TemplateError extends Error {}

function lexAction(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) i++;
    else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      toks.push({ k: 'str', v: JSON.parse(src.slice(i, j + 1)) as string });
      i = j + 1;
    } else if (c === '(' || c === ')' || c === '|') {
      toks.push({ k: c === '(' ? 'lp' : c === ')' ? 'rp' : 'pipe', v: c });
      i++;
    } else {
      const m = /^(-?\d+(?:\.\d+)?|\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*|\.(?:[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)?|[A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(i));
      if (!m) throw new TemplateError(`cannot read "${src.slice(i)}"`);
      const w = m[1];
      toks.push({ k: /^-?\d/.test(w) ? 'num' : w.startsWith('$') ? 'var' : w.startsWith('.') ? 'field' : 'ident', v: w });
      i += w.length;
    }
  }
  return toks;
}

function parsePipeline(toks: Tok[], pos: { i: number }, closing: boolean): Pipeline {
  const commands: Operand[][] = [[]];
  while (pos.i < toks.length) {
    const t = toks[pos.i++];
    const cmd = commands[commands.length - 1];
    if (t.k === 'pipe') commands.push([]);
    else if (t.k === 'rp') {
      if (!closing) throw new TemplateError('unexpected )');
      return commands;
    } else if (t.k === 'lp') cmd.push({ k: 'pipe', p: parsePipeline(toks, pos, true) });
    else if (t.k === 'str') cmd.push({ k: 'lit', v: t.v });
    else if (t.k === 'num') cmd.push({ k: 'lit', v: Number(t.v) });
    else if (t.k === 'field') cmd.push({ k: 'field', base: 'dot', path: t.v === '.' ? [] : t.v.slice(1).split('.') });
    else if (t.k === 'var') {
      if (!t.v.startsWith('$') || /^\$[A-Za-z0-9_]/.test(t.v)) throw new TemplateError(`variables other than $ are not supported: ${t.v}`);
      cmd.push({ k: 'field', base: 'root', path: t.v === '$' ? [] : t.v.slice(2).split('.') });
    } else if (t.v === 'true' || t.v === 'false') cmd.push({ k: 'lit', v: t.v === 'true' });
    else if (t.v === 'nil') cmd.push({ k: 'lit', v: null });
    else cmd.push({ k: 'call', fn: t.v, args: [] });
  }
  if (closing) throw new TemplateError('missing )');
  if (commands.some((c) => c.length === 0)) throw new TemplateError('empty command in a pipeline');
  return commands;
}

/** Splits a template into text and actions, applying the trim markers. */
function lex(src: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open === -1) {
      out.push({ text: src.slice(i) });
      break;
    }
    let text = src.slice(i, open);
    const trimLeft = /^\{\{-\s/.test(src.slice(open, open + 4));
    if (trimLeft) text = text.replace(/\s+$/, '');
    out.push({ text });
    const close = src.indexOf('}}', open);
    if (close === -1) throw new TemplateError('unclosed {{');
    let inner = src.slice(open + 2, close);
    const trimRight = /\s-$/.test(inner);
    inner = inner.replace(/^-\s/, '').replace(/\s-$/, '').trim();
    if (!/^\/\*[\s\S]*\*\/$/.test(inner)) out.push({ action: inner });
    i = close + 2;
    if (trimRight) while (i < src.length && /\s/.test(src[i])) i++;
  }
  return out;
}

export class TemplateSet {
  private readonly defines = new Map<string, Node[]>();
  private readonly files = new Map<string, Node[]>();

  /** Adds a file: its `define`s become includable, the rest is its own output. */
  add(name: string, src: string): void {
    const parts = lex(src);
    const pos = { i: 0 };
    const body = this.parseBlock(parts, pos, name, []);
    this.files.set(name, body);
  }

  private parseBlock(parts: ReturnType<typeof lex>, pos: { i: number }, file: string, ends: string[]): Node[] & { end?: string } {
    const nodes: Node[] & { end?: string } = [];
    while (pos.i < parts.length) {
      const part = parts[pos.i++];
      if ('text' in part) {
        if (part.text) nodes.push({ t: 'text', s: part.text });
        continue;
      }
      const [word] = part.action.split(/\s+/, 1);
      const rest = part.action.slice(word.length).trim();
      if (ends.includes(word)) {
        nodes.end = part.action;
        return nodes;
      }
      if (word === 'define') {
        const name = JSON.parse(rest) as string;
        this.defines.set(name, this.parseBlock(parts, pos, file, ['end']));
      } else if (word === 'if') {
        const branches: { cond?: Pipeline; body: Node[] }[] = [];
        let cond: Pipeline | undefined = this.pipeline(rest);
        for (;;) {
          const body = this.parseBlock(parts, pos, file, ['else', 'end']);
          branches.push({ cond, body });
          if (!body.end) throw new TemplateError(`${file}: if without end`);
          if (body.end === 'end') break;
          const elseRest = body.end.replace(/^else\s*/, '');
          cond = elseRest ? this.pipeline(elseRest.replace(/^if\s+/, '')) : undefined;
          if (elseRest && !elseRest.startsWith('if ')) throw new TemplateError(`${file}: unsupported ${body.end}`);
        }
        nodes.push({ t: 'if', branches });
      } else if (word === 'with' || word === 'range') {
        if (rest.includes(':=')) throw new TemplateError(`${file}: range/with variables are not supported`);
        const body = this.parseBlock(parts, pos, file, ['else', 'end']);
        const orElse = body.end === 'else' ? this.parseBlock(parts, pos, file, ['end']) : [];
        nodes.push({ t: word, p: this.pipeline(rest), body, orElse });
      } else if (['else', 'end', 'block', 'template', 'break', 'continue'].includes(word)) {
        throw new TemplateError(`${file}: unexpected or unsupported {{ ${part.action} }}`);
      } else {
        nodes.push({ t: 'out', p: this.pipeline(part.action) });
      }
    }
    if (ends.length) throw new TemplateError(`${file}: missing {{ end }}`);
    return nodes;
  }

  private pipeline(src: string): Pipeline {
    return parsePipeline(lexAction(src), { i: 0 }, false);
  }

  /** Renders file `name` with `data` as both `.` and `$`. */
  render(name: string, data: Value): string {
    const nodes = this.files.get(name);
    if (!nodes) throw new TemplateError(`no template file ${name}`);
    return this.exec(nodes, data, data);
  }

  include(name: string, dot: Value): string {
    const nodes = this.defines.get(name);
    if (!nodes) throw new TemplateError(`no template "${name}" to include`);
    return this.exec(nodes, dot, dot);
  }

  private exec(nodes: Node[], dot: Value, root: Value): string {
    let out = '';
    for (const n of nodes) {
      if (n.t === 'text') out += n.s;
      else if (n.t === 'out') out += printValue(this.evalPipe(n.p, dot, root));
      else if (n.t === 'if') {
        const hit = n.branches.find((b) => !b.cond || truthy(this.evalPipe(b.cond, dot, root)));
        if (hit) out += this.exec(hit.body, dot, root);
      } else if (n.t === 'with') {
        const v = this.evalPipe(n.p, dot, root);
        out += truthy(v) ? this.exec(n.body, v, root) : this.exec(n.orElse, dot, root);
      } else {
        const v = this.evalPipe(n.p, dot, root);
        const items = Array.isArray(v)
          ? v
          : v && typeof v === 'object'
            ? Object.keys(v)
                .sort()
                .map((k) => (v as Record<string, Value>)[k])
            : [];
        out += items.length ? items.map((item) => this.exec(n.body, item, root)).join('') : this.exec(n.orElse, dot, root);
      }
    }
    return out;
  }

  private evalPipe(p: Pipeline, dot: Value, root: Value): Value {
    let piped: Value[] = [];
    for (const cmd of p) {
      const [head, ...args] = cmd;
      let value: Value;
      if (head.k === 'call') {
        value = this.call(head.fn, [...args.map((a) => this.operand(a, dot, root)), ...piped]);
      } else {
        if (args.length || piped.length) throw new TemplateError('cannot give arguments to a value that is not a function');
        value = this.operand(head, dot, root);
      }
      piped = [value];
    }
    return piped[0];
  }

  private operand(o: Operand, dot: Value, root: Value): Value {
    if (o.k === 'lit') return o.v;
    if (o.k === 'pipe') return this.evalPipe(o.p, dot, root);
    if (o.k === 'call') return this.call(o.fn, []);
    let v = o.base === 'dot' ? dot : root;
    for (const [i, key] of o.path.entries()) {
      if (v === null || typeof v !== 'object' || !(key in (v as object))) {
        throw new TemplateError(`.${o.path.slice(0, i + 1).join('.')} is not defined`);
      }
      v = (v as Record<string, Value>)[key];
    }
    return v;
  }

  private call(fn: string, args: Value[]): Value {
    if (fn === 'include') return this.include(String(args[0]), args[1]);
    const f = FUNCTIONS[fn];
    if (!f) throw new TemplateError(`function ${fn} is not supported`);
    return f(...args);
  }
}

export function truthy(v: Value): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return v !== undefined && v !== null && v !== false && v !== 0 && v !== '';
}

function printValue(v: Value): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') throw new TemplateError('printing a map or list needs toYaml');
  return String(v);
}

/** Helm's toYaml: keys sorted, no trailing newline. */
function toYaml(v: Value): string {
  return stringify(v, { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, '');
}

// as Sprig: the pad goes before every line, empty ones included
const indentLines = (n: number, s: string) => ' '.repeat(n) + s.replace(/\n/g, `\n${' '.repeat(n)}`);

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  default: (fallback, given) => (truthy(given) ? given : fallback),
  quote: (v) => JSON.stringify(v === undefined || v === null ? '' : String(v)),
  toString: (v: Value) => (v === undefined || v === null ? '' : String(v)),
  toYaml,
  indent: (n, s) => indentLines(Number(n), String(s)),
  nindent: (n, s) => `\n${indentLines(Number(n), String(s))}`,
  trunc: (n, s) => String(s).slice(0, Number(n)),
  trimSuffix: (suffix, s) => (String(s).endsWith(String(suffix)) ? String(s).slice(0, -String(suffix).length) : String(s)),
  contains: (sub, s) => String(s).includes(String(sub)),
  printf: (format, ...rest) => {
    let i = 0;
    return String(format).replace(/%[sdv%]/g, (m) => (m === '%%' ? '%' : String(rest[i++])));
  },
  join: (sep, list) => ((list as Value[] | null) ?? []).map(String).join(String(sep)),
  dict: (...kv) => Object.fromEntries(Array.from({ length: kv.length / 2 }, (_, i) => [String(kv[2 * i]), kv[2 * i + 1]])),
  add: (a, b) => Number(a) + Number(b),
  mul: (a, b) => Number(a) * Number(b),
  eq: (a, b) => a === b,
  gt: (a, b) => {
    if (typeof a !== 'number' || typeof b !== 'number') throw new TemplateError(`gt needs two numbers, got ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
    return a > b;
  },
  // Sprig's int turns what does not parse into 0; here that is an error (a typo must fail the test)
  int: (v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw new TemplateError(`int cannot convert ${JSON.stringify(v)}`);
    return Math.trunc(n);
  },
  has: (needle, list) => {
    if (!Array.isArray(list)) throw new TemplateError('has needs a list');
    return list.includes(needle);
  },
  ne: (a, b) => a !== b,
  not: (a) => !truthy(a),
  and: (...xs) => xs.find((x) => !truthy(x)) ?? xs[xs.length - 1],
  or: (...xs) => xs.find((x) => truthy(x)) ?? xs[xs.length - 1],
  fail: (msg) => {
    throw new TemplateError(`fail: ${String(msg)}`);
  },
};
