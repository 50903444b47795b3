/**
 * A small Dockerfile reader for the image tests: joins continuation lines,
 * drops comments, splits instructions into stages. Enough for the instructions
 * this repository's Dockerfile uses; not a general BuildKit parser.
 */

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, ... */
  keyword: string;
  /** Everything after the keyword, continuation lines joined with a space. */
  args: string;
  /** 1-based line the instruction starts on. */
  line: number;
}

export interface Stage {
  /** `FROM <image>` */
  image: string;
  /** `AS <name>`, lower-case; undefined for an unnamed stage. */
  name?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG before the first FROM. */
  globalArgs: Instruction[];
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i])) continue; // a comment inside a continuation is dropped
      line = `${line.replace(/\\\s*$/, '')} ${lines[i].trim()}`;
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!m) throw new Error(`line ${start + 1}: not an instruction: ${line}`);
    instructions.push({ keyword: m[1].toUpperCase(), args: m[2].trim().replace(/\s+/g, ' '), line: start + 1 });
  }
  const result: Dockerfile = { globalArgs: [], stages: [] };
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!from) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      result.stages.push({ image: from[1], name: from[2]?.toLowerCase(), instructions: [] });
    } else if (result.stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`line ${ins.line}: ${ins.keyword} before the first FROM`);
      result.globalArgs.push(ins);
    } else {
      result.stages[result.stages.length - 1].instructions.push(ins);
    }
  }
  return result;
}

/** `KEY=value` pairs of an ENV or ARG instruction (the legacy `ENV KEY value` form too). */
export function keyValues(ins: Instruction): Record<string, string> {
  const out: Record<string, string> = {};
  const legacy = /^([A-Za-z_][A-Za-z0-9_]*)\s+([^=]*)$/.exec(ins.args);
  if (ins.keyword === 'ENV' && legacy) return { [legacy[1]]: legacy[2] };
  for (const m of ins.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) {
    out[m[1]] = (m[2] ?? '').replace(/^["']|["']$/g, '');
  }
  return out;
}

/** A COPY's flags (`--from`, `--chown`, ...) and its sources and destination. */
export function copyParts(ins: Instruction): { flags: Record<string, string>; sources: string[]; dest: string } {
  const words = ins.args.startsWith('[') ? (JSON.parse(ins.args) as string[]) : ins.args.split(' ');
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [k, v = ''] = words.shift()!.slice(2).split('=');
    flags[k] = v;
  }
  const dest = words.pop() ?? '';
  return { flags, sources: words, dest };
}

/** The command of an exec-form (JSON array) or shell-form instruction, as words. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  return JSON.parse(args) as string[];
}
