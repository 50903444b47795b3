import type { Command } from 'commander';
import type { SessionDetail, SessionSummary } from '../../../application/sessions/session-summary.js';
import type { CommandContext } from '../command-context.js';
import { printJson, printPretty, table, writeOut } from '../output.js';

/** `svc sessions list|show`: find a remediation, operation or solution again, and what to do next with it. */
export function registerSessionsCommand(program: Command, context: CommandContext): void {
  const sessions = program.command('sessions').description('Sessions of remediate, operate and the deployment tools: list, show');
  sessions
    .command('list')
    .description('your sessions, newest first, with their status and next step (an admin sees everyone’s)')
    .option('--tool <tool>', 'remediate, operate or recommend (solutions)')
    .option('--status <status>', 'only sessions in this status (awaiting_approval, executed, deployed, ...)')
    .option('--limit <n>', 'sessions per page (1-100)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(async (opts: { tool?: string; status?: string; limit?: string; cursor?: string }, cmd: Command) => {
      const { client, output } = context(cmd);
      const page = await client.get<{ sessions: SessionSummary[]; nextCursor?: string }>('/api/v1/sessions', opts);
      if (output === 'json') return printJson(page);
      const rows = page.sessions.map((s) => [s.sessionId, s.tool, s.status, s.updatedAt, s.owner?.username ?? '-', s.subject]);
      writeOut(table([['SESSION', 'TOOL', 'STATUS', 'UPDATED', 'OWNER', 'SUBJECT'], ...rows]));
      if (page.nextCursor) writeOut(`more: svc sessions list --cursor ${page.nextCursor}`);
    });
  sessions
    .command('show')
    .description('a session: where it stands, its next step, and what its tool answers about it')
    .argument('<sessionId>')
    .action(async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const session = await client.get<SessionDetail>(`/api/v1/sessions/${encodeURIComponent(sessionId)}`);
      if (output === 'json') return printJson(session);
      const { view, nextStep, ...rest } = session;
      printPretty({ ...rest, view });
      writeOut(`\nNext: ${nextStep}`);
    });
}
