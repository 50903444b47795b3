/**
 * Evaluation benchmark (`npm run bench:eval`): `svc eval --replay` over every
 * scenario, in process and one case after another as the command runs them
 * (a fresh sandbox, data directory and container per case, svc's real use
 * cases, the recorded transcripts), timed end to end; against a baseline in
 * the same run: the same scenarios' sandboxes alone (started, settled into
 * their broken state, judged and closed), with no svc. Target: the whole
 * replay in under 60 s on 2 cores. BENCH_EVAL_TAGS=a,b keeps the scenarios
 * carrying any of those tags.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runEvaluation, selectScenarios } from '../lab/evaluation/eval-main.js';
import { ScenarioCluster } from '../lab/sandbox/scenario-cluster.js';
import { percentile } from './support/ai-bench-kit.js';

const TAGS = (process.env.BENCH_EVAL_TAGS ?? '').split(',').filter(Boolean);
const TARGET_S = 60;

async function sandboxesAlone(): Promise<number> {
  const t = performance.now();
  for (const loaded of selectScenarios({ scenarios: [], tags: TAGS })) {
    const sandbox = await ScenarioCluster.start(loaded);
    sandbox.health();
    await sandbox.close();
  }
  return performance.now() - t;
}

async function main(): Promise<void> {
  const scenarios = selectScenarios({ scenarios: [], tags: TAGS }).length;
  console.log(`\n### svc eval --replay, ${scenarios} scenarios, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at start\n`);
  const baseline = await sandboxesAlone();
  const t = performance.now();
  const { report } = await runEvaluation({ scenarios: [], tags: TAGS, repeat: 1, replay: true, record: false }, {}, () => undefined);
  const total = performance.now() - t;
  const latencies = report.cases.map((c) => c.latencyMs);
  const passed = report.cases.filter((c) => c.score.passed).length;
  console.log(
    '| run | total s | per case p50 ms | per case p99 ms | passed | baseline: sandboxes alone s | ratio | target |\n|---|---:|---:|---:|---:|---:|---:|---|',
  );
  console.log(
    `| svc eval --replay | ${(total / 1000).toFixed(1)} | ${percentile(latencies, 50).toFixed(0)} | ${percentile(latencies, 99).toFixed(0)} | ${passed}/${report.cases.length} | ${(baseline / 1000).toFixed(1)} | ${(total / baseline).toFixed(2)} | < ${TARGET_S} s: ${total / 1000 < TARGET_S ? 'met' : 'NOT met'} |`,
  );
  console.log('\nper case p50/p99: the tool calls of a case (svc and the sandbox it talks to), without setting up and judging the sandbox');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
