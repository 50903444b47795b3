import type { Command } from 'commander';
import type { VersionOutput } from '../../../domain/tools/outputs/version-output.js';
import type { CommandContext } from '../command-context.js';
import { printJson, table, writeOut } from '../output.js';

/** The version tool's result, typed from the tool's own output schema (no hand-written copy to drift). */
type SystemStatus = VersionOutput;

const mark = (ok: boolean) => (ok ? 'ok  ' : 'down');

/** The version tool's result as a short report a person can read at a glance. */
export function formatStatus(s: SystemStatus): string {
  const { version, vectorDB, embedding, aiProvider, kubernetes, tracing, sharedState } = s.system;
  const rows: string[][] = [['vector DB', mark(vectorDB.connected), [vectorDB.provider, vectorDB.error].filter(Boolean).join(': ')]];
  for (const [name, c] of Object.entries(vectorDB.collections ?? {})) {
    rows.push([`  ${name}`, c.exists ? 'ok  ' : '-   ', c.exists ? `${c.documentsCount} documents` : 'absent']);
  }
  if (embedding)
    rows.push([
      'embeddings',
      mark(embedding.healthy),
      `${embedding.provider} ${embedding.model}${embedding.kind ? ` (${embedding.kind})` : ''}${embedding.error ? `: ${embedding.error}` : ''}`,
    ]);
  if (aiProvider)
    rows.push([
      'AI provider',
      // configured and, when the server asked it, answering
      mark(aiProvider.configured && aiProvider.healthy !== false),
      aiProvider.configured
        ? `${aiProvider.provider} ${aiProvider.model ?? ''}`.trim() + (aiProvider.error ? `: ${aiProvider.error}` : '')
        : (aiProvider.hint ?? 'not configured'),
    ]);
  rows.push([
    'kubernetes',
    mark(kubernetes.connected),
    kubernetes.connected
      ? `context ${kubernetes.context}${kubernetes.serverVersion ? `, ${kubernetes.serverVersion}` : ''}`
      : (kubernetes.error ?? 'not connected'),
  ]);
  if (sharedState.configured)
    rows.push(['shared state', mark(sharedState.connected), [sharedState.provider, sharedState.url, sharedState.error].filter(Boolean).join(' ')]);
  if (tracing)
    rows.push([
      'tracing',
      tracing.enabled ? 'on  ' : 'off ',
      tracing.enabled ? `${tracing.exporter} as ${tracing.serviceName}: ${tracing.status}` : tracing.status,
    ]);
  return `svc ${version.version} (node ${version.nodeVersion}, ${version.platform}): ${s.status}\n${table(rows)}`;
}

export function registerStatusCommand(program: Command, context: CommandContext): void {
  program
    .command('status')
    .description('Show the server version and the health of its dependencies (the version tool)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const data = await client.post<{ result: SystemStatus }>('/api/v1/tools/version', {});
      if (output === 'json') return printJson(data.result);
      writeOut(formatStatus(data.result));
    });
}
