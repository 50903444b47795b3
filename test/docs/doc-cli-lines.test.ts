import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Command, CommanderError } from 'commander';
import { ValidationError } from '../../domain/errors.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../domain/tools/tool-registry.js';
import { buildProgram } from '../../interfaces/cli/program.js';
import { parseToolParams, type ToolInputSchema } from '../../interfaces/cli/tool-params.js';
import { inputJsonSchema } from '../../interfaces/shared/tool-json-schema.js';

const root = path.join(__dirname, '..', '..', '..');
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface CliLine {
  where: string;
  line: string;
  /** Inline code in prose: may name a command without its arguments (`svc runs watch`). */
  inline?: true;
}

/** A synopsis, not a command: placeholders, optional parts, an ellipsis, or a mail address. */
const SYNOPSIS = /[<[…]|\.\.\.(\s|$)|\|/;

/**
 * The `svc` command lines of a page: every line of a sh/bash/shell fence, and
 * the `$ ` lines of a console fence, that runs svc (after any VAR=value and npx).
 */
export function cliLines(file: string, text: string): CliLine[] {
  const found: CliLine[] = [];
  let fence: string | undefined;
  let carried = '';
  text.split('\n').forEach((raw, i) => {
    const open = /^\s*```(\S*)/.exec(raw);
    if (open) {
      fence = fence === undefined ? open[1] || 'text' : undefined;
      return;
    }
    if (fence === undefined) {
      // inline code that is a whole command: `npx svc status`
      for (const m of raw.matchAll(/`((?:[A-Z_]+=\S+ )*(?:npx )?svc [^`]+)`/g)) {
        const line = m[1].replace(/^(?:[A-Z_]+=\S+\s+)*(?:npx\s+)?/, '');
        if (!SYNOPSIS.test(line)) found.push({ where: `${file}:${i + 1}`, line, inline: true });
      }
      return;
    }
    let line = raw.trim();
    if (line.startsWith('$ ')) line = line.slice(2);
    // in a console or plain fence only `$ ` lines run; an indented `svc run` line is a next step svc prints
    else if (!carried && !['sh', 'bash', 'shell'].includes(fence) && !/^\s+svc run\s/.test(raw)) return;
    if (line.endsWith('\\')) {
      carried += line.slice(0, -1) + ' ';
      return;
    }
    line = carried + line;
    carried = '';
    const command = line.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)*/, '').replace(/^npx\s+/, '');
    if (/^svc(\s|$)/.test(command)) found.push({ where: `${file}:${i + 1}`, line: command });
  });
  return found;
}

/** Shell words up to the end of the command (a pipe, `;`, `&&`, `&`, a redirection or a comment ends it); `$VAR` stands for a value. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const push = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  while (i < command.length) {
    const c = command[i];
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const end = command.indexOf('"', i + 1);
      word = (word ?? '') + command.slice(i + 1, end).replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, 'value');
      i = end + 1;
    } else if (/\s/.test(c)) {
      push();
      i++;
    } else if ('|;&>'.includes(c) || (c === '#' && word === undefined)) {
      break;
    } else {
      word = (word ?? '') + (c === '$' ? 'value' : c);
      i += c === '$' ? (/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/.exec(command.slice(i))?.[0].length ?? 1) : 1;
    }
  }
  push();
  return words;
}

/** The real command tree with every action replaced: parsing checks commands, arguments and options, nothing is sent. */
function parsingOnly(): { program: Command; ran: { command?: Command; args: unknown[] } } {
  const ran: { command?: Command; args: unknown[] } = { args: [] };
  const program = buildProgram();
  program.configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
  const stub = (cmd: Command) => {
    cmd.configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
    if (cmd.commands.length === 0 || (cmd as unknown as { _actionHandler?: unknown })._actionHandler)
      cmd.action((...args: unknown[]) => {
        ran.command = cmd;
        ran.args = args;
      });
    cmd.commands.forEach(stub);
  };
  stub(program);
  return { program, ran };
}

const registry = new ToolRegistry(TOOL_DEFINITIONS);

describe('the docs: every svc command line parses as the CLI reads it (commands, options, tool parameters)', () => {
  const lines = pages.flatMap((file) => cliLines(file, readFileSync(path.join(root, file), 'utf8')));

  it('finds the command lines of the pages (a page that moves its examples out of fences would drop them silently)', () => {
    expect(lines.length).to.be.at.least(25);
    expect(lines.map((l) => l.where.split(':')[0])).to.include.members(['README.md', 'docs/tools.md', 'docs/ledger.md', 'docs/runs.md']);
  });

  for (const { where, line, inline } of lines) {
    it(`${where}: ${line.slice(0, 90)}`, async () => {
      const words = shellWords(line).slice(1);
      const { program, ran } = parsingOnly();
      try {
        await program.parseAsync(words, { from: 'user' });
      } catch (e) {
        if (e instanceof CommanderError && ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(e.code)) {
          expect(e.exitCode, `svc ${words.join(' ')} shows help`).to.equal(0);
          return;
        }
        // prose names a command without its arguments: the command itself must exist
        if (inline && e instanceof CommanderError && e.code === 'commander.missingArgument') {
          const named = words[0] ? program.commands.find((c) => c.name() === words[0] || c.aliases().includes(words[0]!)) : undefined;
          expect(named, `svc ${words[0]} is a command`).to.not.equal(undefined);
          return;
        }
        throw new Error(`svc ${words.join(' ')}: ${(e as Error).message}`, { cause: e });
      }
      expect(ran.command, `svc ${words.join(' ')} runs no command`).to.not.equal(undefined);
      if (ran.command?.name() !== 'run') return;
      // `svc run <tool> --name value ...`: the tool exists and its parameters are valid for its schema
      const [tool, params] = ran.args as [string, string[]];
      const def = registry.list().find((d) => d.name === tool);
      expect(def, `${tool} is a tool`).to.not.equal(undefined);
      const input = parseToolParams(tool, inputJsonSchema(def!) as ToolInputSchema, params);
      try {
        registry.validate(tool, input);
      } catch (e) {
        if (e instanceof ValidationError) throw new Error(`svc run ${tool}: ${e.message}`, { cause: e });
        throw e;
      }
    });
  }

  it('the parser itself: a wrong subcommand, an unknown option and a bad tool parameter are caught', async () => {
    for (const bad of ['svc prompts render x', 'svc changes lsit', 'svc runs list --colour red']) {
      const { program } = parsingOnly();
      const failed = await program.parseAsync(shellWords(bad).slice(1), { from: 'user' }).then(
        () => false,
        () => true,
      );
      expect(failed, bad).to.equal(true);
    }
    expect(shellWords(`svc --token "$TOKEN" run remediate --issue 'a b' | jq .`)).to.deep.equal([
      'svc',
      '--token',
      'value',
      'run',
      'remediate',
      '--issue',
      'a b',
    ]);
  });
});
