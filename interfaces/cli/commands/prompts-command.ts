import type { Command } from 'commander';
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../command-context.js';
import { printJson, table, writeOut } from '../output.js';
import { registerUploadCommand } from './upload-command.js';

interface PromptEntry {
  name: string;
  description: string;
  arguments?: { name: string; description: string; required: boolean }[];
}

interface RenderedPrompt {
  description?: string;
  messages: { role: string; content: { type: string; text: string } }[];
  files?: { path: string; content: string; mode: string }[];
  source: string;
}

interface SourceFlags {
  repo?: string;
  path?: string;
  branch?: string;
  source?: string;
}

function withSourceFlags(cmd: Command): Command {
  return cmd
    .option('--repo <url>', 'prompts repository to read instead of the configured one')
    .option('--path <dir>', 'subdirectory of --repo (default: its root)')
    .option('--branch <name>', 'branch of --repo (default: main)')
    .option('--source <id>', 'an uploaded skill source (see `svc prompts upload`); wins over --repo');
}

/** `--arg k=v` pairs; a value may contain '='. */
function collectArg(pair: string, previous: Record<string, string>): Record<string, string> {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new UsageError(`--arg expects name=value, got "${pair}"`);
  const name = pair.slice(0, eq);
  if (Object.prototype.hasOwnProperty.call(previous, name)) throw new UsageError(`--arg ${name} is given more than once`);
  return { ...previous, [name]: pair.slice(eq + 1) };
}

function formatPrompt(p: RenderedPrompt): string {
  const parts = p.messages.map((m) => (p.messages.length > 1 ? `[${m.role}]\n${m.content.text.trimEnd()}` : m.content.text.trimEnd()));
  if (p.files?.length) {
    const rows = p.files.map((f) => [f.mode, `${Buffer.from(f.content, 'base64').length} B`, f.path]);
    parts.push(`--- ${p.files.length} file(s) in this skill:\n${table(rows)}`);
  }
  return parts.join('\n\n');
}

export function registerPromptsCommand(program: Command, context: CommandContext): void {
  const prompts = program.command('prompts').description('The shared prompt library: list, get (render a prompt), upload a local skill folder');

  withSourceFlags(prompts.command('list').description('List the prompts of the library')).action(async (opts: SourceFlags, cmd: Command) => {
    const { client, output } = context(cmd);
    const data = await client.get<{ prompts: PromptEntry[]; source: string }>('/api/v1/prompts', { ...opts });
    if (output === 'json') return printJson(data);
    const rows = [['NAME', 'ARGUMENTS', 'DESCRIPTION']];
    for (const p of data.prompts) {
      rows.push([p.name, (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ') || '-', p.description]);
    }
    writeOut(`${data.prompts.length} prompt(s) from ${data.source}\n${data.prompts.length ? table(rows) : ''}`.trimEnd());
  });

  withSourceFlags(prompts.command('get').description('Render a prompt with its arguments').argument('<name>', 'prompt name'))
    .option('--arg <name=value>', 'an argument value; repeat for each argument', collectArg, {} as Record<string, string>)
    .action(async (name: string, opts: SourceFlags & { arg: Record<string, string> }, cmd: Command) => {
      const { client, output } = context(cmd);
      const data = await client.post<RenderedPrompt>(
        `/api/v1/prompts/${encodeURIComponent(name)}`,
        { arguments: opts.arg },
        { repo: opts.repo, path: opts.path, branch: opts.branch, source: opts.source },
      );
      if (output === 'json') return printJson(data);
      writeOut(formatPrompt(data));
    });

  registerUploadCommand(prompts, context);
}
