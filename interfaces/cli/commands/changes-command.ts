import type { Command } from 'commander';
import { CHANGE_QUERY, changeQueryFromFlags, parseChangeQuery } from '../../../application/ledger/change-query.js';
import type { ChangeList } from '../../../application/ledger/list-changes.js';
import { ValidationError } from '../../../domain/errors.js';
import type { ChangeView } from '../../../application/ledger/change-view.js';
import type { RevertPreview } from '../../../application/ledger/revert-change.js';
import type { VerifiedLedger } from '../../../application/ledger/verify-ledger.js';
import { CheckFailed, UsageError } from '../cli-errors.js';
import type { CommandContext } from '../command-context.js';
import { printJson, printPretty, table, writeOut } from '../output.js';

const flagOf = (name: string) => CHANGE_QUERY.find((q) => q.name === name)?.flag ?? name;
const target = (c: ChangeView) => `${c.target.kind}/${c.target.name}${c.target.namespace ? ` -n ${c.target.namespace}` : ''}`;
const outcome = (c: ChangeView) =>
  c.type === 'intent'
    ? 'pending (intent: no outcome yet)'
    : c.type === 'verdict'
      ? verdictLine(c)
      : 'message' in c.outcome
        ? `${c.outcome.status}: ${c.outcome.message.slice(0, 60)}`
        : c.outcome.status;

/** A verdict entry's outcome column: the verdict on the change it names, and what svc did about a degraded one. */
function verdictLine(c: ChangeView): string {
  const v = c.verdict;
  if (!v) return `verdict on ${c.verdictOf ?? '?'}`;
  const done = v.revertId ? `, reverted by ${v.revertId}` : v.notReverted !== undefined ? ', not reverted' : '';
  return `verdict ${v.health} on ${c.verdictOf ?? '?'}${done}`;
}

export function formatChanges(list: ChangeList): string {
  const rows = [['ID', 'AT', 'CALLER', 'TOOL', 'TYPE', 'METHOD', 'TARGET', 'OUTCOME']];
  for (const c of list.changes) rows.push([c.id, c.at, c.caller.username, c.tool, c.type, c.change.method, target(c), outcome(c)]);
  const more = list.nextCursor ? `\n(more: --cursor ${list.nextCursor})` : '';
  return list.changes.length ? `${table(rows)}${more}` : 'No change matches.';
}

export function formatIntegrity(r: VerifiedLedger): string {
  const sealed = [r.unkeyed ? `${r.unkeyed} entries sealed before the key` : '', r.previousKey ? `${r.previousKey} entries sealed with the previous key` : '']
    .filter(Boolean)
    .join('; ');
  const head = r.head ? `\nhead: seq ${r.head.seq}, hash ${r.head.hash}${r.keyed ? ` (keyed${sealed ? `; ${sealed}` : ''})` : ''}` : '';
  const warning = r.warning ? `\nwarning: ${r.warning}` : '';
  const open = r.openIntents
    ? `\nopen intents: ${r.openIntents.count} (writes with no outcome recorded yet: ${r.openIntents.ids.slice(0, 10).join(', ')}${r.openIntents.count > 10 ? ', …' : ''})`
    : '';
  if (r.ok) return `ok: ${r.entries} entries, the chain is unbroken${head}${open}${warning}`;
  return `BROKEN after reading ${r.entries} entries${r.firstBrokenId ? `: first broken entry ${r.firstBrokenId}` : ''}\n${r.problem ?? ''}${head}${open}${warning}`;
}

export function registerChangesCommand(program: Command, context: CommandContext): void {
  const changes = program.command('changes').description('The ledger of every change svc made to a cluster: list, show, revert, verify');

  const list = changes.command('list').description('List ledger entries, newest first');
  for (const q of CHANGE_QUERY) list.option(`--${q.flag} <${q.arg}>`, q.help);
  list.action(async (flags: Record<string, string>, cmd: Command) => {
    const { client, output } = context(cmd);
    const query = changeQueryFromFlags(flags);
    try {
      // the server's own check, before anything is sent
      parseChangeQuery(query);
    } catch (e) {
      if (e instanceof ValidationError) throw new UsageError(e.message.replace(/^Invalid (\w+)/, (_m, name: string) => `Invalid --${flagOf(name)}`));
      throw e;
    }
    const data = await client.get<ChangeList>('/api/v1/changes', query);
    if (output === 'json') return printJson(data);
    writeOut(formatChanges(data));
  });

  changes
    .command('show <id>')
    .description('Show one ledger entry in full')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const data = await client.get<ChangeView>(`/api/v1/changes/${encodeURIComponent(id)}`);
      if (output === 'json') return printJson(data);
      printPretty(forPeople(data));
    });

  changes
    .command('revert <id>')
    .description(
      "Undo one change through svc's write guard: dry run of the inverse first; refused (409) when the object changed since, unless --force; --preview shows the undo and its planDigest, writing nothing",
    )
    .option('--force', 'revert the recorded fields even though the object changed since')
    .option('--preview', "show the undo as svc's write guard judges it (dry run, diff, risk) and its planDigest; nothing is written")
    .option('--plan-digest <digest>', 'the planDigest of the preview you reviewed (required of a second approver, and to revert a revert)')
    .action(async (id: string, opts: { force?: boolean; preview?: boolean; planDigest?: string }, cmd: Command) => {
      const { client, output } = context(cmd);
      if (opts.planDigest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(opts.planDigest))
        throw new UsageError('Invalid --plan-digest: the planDigest of a preview (sha256: followed by 64 hex digits)');
      if (opts.preview && opts.planDigest !== undefined) throw new UsageError('--preview writes nothing: send --plan-digest with the revert itself');
      const body = {
        ...(opts.force ? { force: true } : {}),
        ...(opts.preview ? { preview: true } : {}),
        ...(opts.planDigest ? { planDigest: opts.planDigest } : {}),
      };
      const path = `/api/v1/changes/${encodeURIComponent(id)}/revert`;
      if (opts.preview) {
        const shown = await client.post<RevertPreview>(path, body);
        if (output === 'json') return printJson(shown);
        return writeOut(formatRevertPreview(shown));
      }
      const data = await client.post<{ original: ChangeView; revert: ChangeView }>(path, body);
      if (output === 'json') return printJson(data);
      writeOut(`reverted ${data.original.id} (${target(data.original)}) with ${data.revert.id}: ${outcome(data.revert)}`);
    });

  changes
    .command('verify')
    .description('Walk the hash chain; exits 3 when it is broken')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, output } = context(cmd);
      const data = await client.get<VerifiedLedger>('/api/v1/changes/integrity');
      if (output === 'json') printJson(data);
      else writeOut(formatIntegrity(data));
      if (!data.ok) throw new CheckFailed('the ledger chain is broken');
    });
}

/** What a person reads first: who changed what, when and how it went; the bodies and the chain's hashes last. */
const SHOW_FIRST = [
  'id',
  'type',
  'at',
  'caller',
  'tool',
  'sessionId',
  'target',
  'risk',
  'riskReasons',
  'outcome',
  'approval',
  'revertOf',
  'verdictOf',
  'verdict',
  'laterVerdict',
  'revertedBy',
  'request',
  'rationale',
];
const SHOW_LAST = ['change', 'dryRun', 'diff', 'before', 'after', 'inverse', 'seq', 'prevHash', 'mac', 'hash'];

/** The entry with its keys in reading order (the server's JSON keeps the chain's canonical order). */
export function forPeople(entry: object): Record<string, unknown> {
  const fields = entry as Record<string, unknown>;
  const rank = (k: string) => (SHOW_FIRST.includes(k) ? SHOW_FIRST.indexOf(k) - 100 : SHOW_LAST.includes(k) ? 100 + SHOW_LAST.indexOf(k) : 0);
  const keys = Object.keys(fields).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, fields[k]]));
}

/** A revert's preview for people: what the undo writes, its risk and why, the diff, and the digest to send back. */
export function formatRevertPreview(shown: RevertPreview): string {
  const p = shown.preview;
  const lines = [
    `revert of ${shown.original.id}: ${p.method} ${p.target.kind} ${p.target.namespace ? `${p.target.namespace}/` : ''}${p.target.name} (nothing written)`,
    `risk: ${p.risk}${p.riskReasons.length ? ` (${p.riskReasons.join('; ')})` : ''}`,
    ...(p.secondApproverRequired ? [`needs a second approver: ${p.secondApproverRequired}`] : []),
    ...p.diff.map((c) => `  ${c.path}: ${JSON.stringify(c.from ?? null)} -> ${JSON.stringify(c.to ?? null)}`),
    `planDigest: ${shown.planDigest}`,
    `to revert exactly this: svc changes revert ${shown.original.id} --plan-digest ${shown.planDigest}`,
  ];
  return lines.join('\n');
}
