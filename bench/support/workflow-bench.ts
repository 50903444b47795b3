/**
 * The deployment workflow measurement: one whole recommend-to-deploy run
 * (recommend, chooseSolution, answerQuestion x4, generateManifests,
 * deployManifests) through the real HTTP server, with the stand-ins of
 * test/support answering at once in this process (scripted chat server,
 * Kubernetes API stand-in whose Deployment becomes available within a few
 * polls; deployManifests' poll waits pass instantly). Reported per step: wall
 * time and process CPU time (svc's own work plus the stand-ins' small share),
 * model requests and the bytes of the chat requests svc sent.
 *
 * Call: `const m = await measureWorkflow({ runs: 5 }); printWorkflowMeasurement(m);`
 * (from a bench script built to dist/, e.g. bench/ai.ts).
 */
import 'reflect-metadata';
import { startAccessServer, TEST_TOKEN } from '../../test/support/access-server.js';
import { runWorkflow, WorkflowStandIns } from '../../test/support/workflow-harness.js';

export interface WorkflowStepMeasurement {
  /** Tool name, with the stage for answerQuestion (`answerQuestion:required`). */
  step: string;
  medianMs: number;
  medianCpuMs: number;
  modelRequests: number;
  /** Bytes of the chat completion request bodies sent during the step (JSON, as sent). */
  bytesToModel: number;
}

export interface WorkflowMeasurement {
  runs: number;
  /** Whole run, wall time, median of the runs. */
  medianTotalMs: number;
  minTotalMs: number;
  maxTotalMs: number;
  steps: WorkflowStepMeasurement[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number) => Math.round(x * 10) / 10;

async function oneRun(): Promise<{ totalMs: number; steps: { step: string; ms: number; cpuMs: number; requests: number; bytes: number }[] }> {
  const s = await WorkflowStandIns.start();
  const server = await startAccessServer({ env: { ...s.env(), LOG_LEVEL: 'silent' }, overrides: s.overrides() });
  try {
    await s.seedOrgData(server.container);
    s.answer();
    const steps: { step: string; ms: number; cpuMs: number; requests: number; bytes: number }[] = [];
    const call = async (tool: string, params: Record<string, unknown>) => {
      const before = s.chat.requests.length;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/v1/tools/${tool}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(params),
      });
      const body = (await res.json()) as { data?: { result: Record<string, unknown> }; error?: unknown };
      const ms = performance.now() - t0;
      const used = process.cpuUsage(cpu);
      if (!res.ok || !body.data) throw new Error(`${tool} answered ${res.status}: ${JSON.stringify(body.error)}`);
      const sent = s.chat.requests.slice(before);
      steps.push({
        step: tool === 'answerQuestion' ? `${tool}:${String(params.stage)}` : tool,
        ms,
        cpuMs: (used.user + used.system) / 1000,
        requests: sent.length,
        bytes: sent.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r)), 0),
      });
      return body.data.result;
    };
    const t0 = performance.now();
    const run = await runWorkflow(call);
    const totalMs = performance.now() - t0;
    if (run.at(-1)!.result.status !== 'ready') throw new Error(`the run did not end ready: ${JSON.stringify(run.at(-1)!.result)}`);
    return { totalMs, steps };
  } finally {
    await server.stop();
    await s.close();
  }
}

/** Runs the whole workflow `runs` times (after one warm-up run that is not counted). */
export async function measureWorkflow(options: { runs?: number } = {}): Promise<WorkflowMeasurement> {
  const runs = Math.max(1, options.runs ?? 5);
  await oneRun();
  const results: Awaited<ReturnType<typeof oneRun>>[] = [];
  for (let i = 0; i < runs; i++) results.push(await oneRun());
  const totals = results.map((r) => r.totalMs);
  const steps = results[0].steps.map((first, i) => ({
    step: first.step,
    medianMs: round(median(results.map((r) => r.steps[i].ms))),
    medianCpuMs: round(median(results.map((r) => r.steps[i].cpuMs))),
    modelRequests: first.requests,
    bytesToModel: first.bytes,
  }));
  return { runs, medianTotalMs: round(median(totals)), minTotalMs: round(Math.min(...totals)), maxTotalMs: round(Math.max(...totals)), steps };
}

/** A table for the terminal. */
export function formatWorkflowMeasurement(m: WorkflowMeasurement): string {
  const rows = [
    ['step', 'median ms', 'cpu ms', 'model requests', 'bytes to model'],
    ...m.steps.map((s) => [s.step, String(s.medianMs), String(s.medianCpuMs), String(s.modelRequests), String(s.bytesToModel)]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const table = rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return `deployment workflow, ${m.runs} runs: median ${m.medianTotalMs} ms (min ${m.minTotalMs}, max ${m.maxTotalMs})\n${table}\n`;
}
