import { VERDICT_EVIDENCE_CHARS, VERDICT_EVIDENCE_LINES, type ChangeEntry, type ChangeRecord, type ChangeVerdict } from './change-entry.js';

/**
 * The `verdict` entry on a change: svc's verdict reached after the tool
 * answered, appended to the chain as its own entry (entries are never
 * rewritten), naming the change in `verdictOf`. Who, which tool, session,
 * approval and target are the judged change's; nothing was sent (`change`
 * `none`, outcome `judged`) and nothing is to undo (`inverse` null: a verdict
 * is not reverted, the change it judges is).
 */
export function verdictRecord(judged: ChangeEntry, verdict: ChangeVerdict): ChangeRecord {
  const evidence = verdict.evidence
    .slice(0, VERDICT_EVIDENCE_LINES)
    .map((line) => (line.length > VERDICT_EVIDENCE_CHARS ? `${line.slice(0, VERDICT_EVIDENCE_CHARS - 1)}…` : line));
  return {
    type: 'verdict',
    caller: judged.caller,
    tool: judged.tool,
    ...(judged.sessionId !== undefined ? { sessionId: judged.sessionId } : {}),
    approval: judged.approval,
    target: judged.target,
    before: null,
    change: { method: 'none' },
    outcome: { status: 'judged' },
    inverse: null,
    verdictOf: judged.id,
    verdict: {
      ...verdict,
      evidence,
      ...(verdict.notReverted !== undefined ? { notReverted: verdict.notReverted.slice(0, VERDICT_EVIDENCE_CHARS) } : {}),
    },
  };
}
