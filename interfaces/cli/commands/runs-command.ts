import type { Command } from 'commander';
import type { RunSummary, RunView } from '../../../domain/runs/run.js';
import type { CommandContext } from '../command-context.js';
import { printJson, printPretty, table, writeOut } from '../output.js';
import { describeEvent, watchRun } from '../run-watch.js';

const idOf = (runId: string) => encodeURIComponent(runId);

/** `svc runs list|show|watch|cancel`: the runs started with `svc run` (or Prefer: respond-async). */
export function registerRunsCommand(program: Command, context: CommandContext): void {
  const runs = program.command('runs').description('Runs of the long AI tools: list, show, watch, cancel');
  runs
    .command('list')
    .description('your runs, newest first (an admin sees everyone’s)')
    .option('--tool <tool>', 'only runs of this tool')
    .option('--status <status>', 'queued, running, succeeded, failed or cancelled')
    .option('--cluster <cluster>', 'only runs in this cluster (SVC_CLUSTERS)')
    .option('--limit <n>', 'runs per page (1-100)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(async (opts: { tool?: string; status?: string; cluster?: string; limit?: string; cursor?: string }, cmd: Command) => {
      const { client, output } = context(cmd);
      const page = await client.get<{ runs: RunSummary[]; nextCursor?: string }>('/api/v1/runs', opts);
      if (output === 'json') return printJson(page);
      // a CLUSTER column once any run names one (svc serving a fleet); one cluster's listing is as before
      const fleet = page.runs.some((r) => r.cluster !== undefined);
      const header = ['RUN', 'TOOL', ...(fleet ? ['CLUSTER'] : []), 'STATUS', 'CREATED', 'CALLER'];
      writeOut(table([header, ...page.runs.map((r) => [r.runId, r.tool, ...(fleet ? [r.cluster ?? '-'] : []), r.status, r.createdAt, r.caller.username])]));
      if (page.nextCursor) writeOut(`more: svc runs list --cursor ${page.nextCursor}`);
    });
  runs
    .command('show')
    .description('a run: status, progress, result or error')
    .argument('<runId>')
    .action(async (runId: string, _opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const run = await client.get<RunView>(`/api/v1/runs/${idOf(runId)}`);
      if (output === 'json') return printJson(run);
      const { progress, ...rest } = run;
      printPretty({ ...rest, progress: progress.map((e) => `${e.at} ${describeEvent(e)}`) });
    });
  runs
    .command('watch')
    .description('follow a run’s progress until it ends (Ctrl-C stops watching; the run goes on)')
    .argument('<runId>')
    .action(async (runId: string, _opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const run = await watchRun(client, runId, { live: process.stderr.isTTY === true && output !== 'json', cancelOnInterrupt: false });
      if (output === 'json') return printJson(run);
      writeOut(`${run.runId}: ${run.status}${run.error ? ` (${run.error.code}: ${run.error.message})` : ''}`);
    });
  runs
    .command('cancel')
    .description('cancel a queued or running run')
    .argument('<runId>')
    .action(async (runId: string, _opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const run = await client.delete<RunView>(`/api/v1/runs/${idOf(runId)}`);
      if (output === 'json') return printJson(run);
      writeOut(`${run.runId}: ${run.status}${run.error ? ` (${run.error.message})` : ''}`);
    });
}
