import type { Command } from 'commander';
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
    .option('--category <category>', 'exact category: AI Tools, Deployment, Management, System, Troubleshooting, Documentation')
    .option('--tag <tags>', 'a tag, or comma-separated tags (any match)')
    .option('--search <text>', 'case-insensitive text in the name or description')
    .action(async (opts: { category?: string; tag?: string; search?: string }, cmd: Command) => {
      const { client, output } = context(cmd);
      const data = await client.get<{ tools: CatalogEntry[] }>('/api/v1/tools', opts);
      if (output === 'json') return printJson(data.tools);
      if (data.tools.length === 0) return writeOut('No tools match.');
      const rows = [['NAME', 'CATEGORY', 'TAGS', 'DESCRIPTION']];
      for (const t of data.tools) rows.push([t.name, t.category, t.tags.join(','), t.description]);
      writeOut(table(rows));
    });
}
