import type { Command } from 'commander';
import { TOOL_CATEGORIES } from '../../../domain/tools/tool-definition.js';
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../command-context.js';
import { printJson, table, writeOut } from '../output.js';

interface CatalogEntry {
  name: string;
  description: string;
  category: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
}

export function registerToolsCommand(program: Command, context: CommandContext): void {
  program
    .command('tools')
    .description('List the tools the server offers (filters combine)')
    .argument('[list]', 'optional: `svc tools list` is the same as `svc tools`')
    .option('--category <category>', `a category, any case: ${TOOL_CATEGORIES.join(', ')}`)
    .option('--tag <tags>', 'a tag, or comma-separated tags (any match)')
    .option('--search <text>', 'case-insensitive text in the name or description')
    .action(async (list: string | undefined, opts: { category?: string; tag?: string; search?: string }, cmd: Command) => {
      if (list !== undefined && list !== 'list')
        throw new UsageError(`Unknown argument ${JSON.stringify(list)}: \`svc tools\` (or \`svc tools list\`) takes only flags`);
      const { client, output } = context(cmd);
      const data = await client.get<{ tools: CatalogEntry[] }>('/api/v1/tools', {
        ...opts,
        ...(opts.category !== undefined ? { category: categoryNamed(opts.category) } : {}),
      });
      if (output === 'json') return printJson(data.tools);
      if (data.tools.length === 0) return writeOut('No tools match.');
      const rows = [['NAME', 'CATEGORY', 'TAGS', 'DESCRIPTION']];
      for (const t of data.tools) rows.push([t.name, t.category, t.tags.join(','), t.description]);
      writeOut(table(rows));
    });
}

/** The server matches a category exactly (SPEC): the CLI takes any case and refuses a name that is none of them, instead of listing nothing. */
function categoryNamed(given: string): string {
  const found = TOOL_CATEGORIES.find((c) => c.toLowerCase() === given.trim().toLowerCase());
  if (!found) throw new UsageError(`Unknown category ${JSON.stringify(given)}: one of ${TOOL_CATEGORIES.join(', ')} (any case)`);
  return found;
}
