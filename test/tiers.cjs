// The test tiers, as mocha configurations over the compiled tests in dist/test.
// `SVC_TEST_TIER=unit|adapters|http|slow mocha --config test/tiers.cjs` runs one
// tier; `npm test` (.mocharc.json) runs every file of every tier. Each test file is
// in exactly one tier, and every file that starts processes, Redis or Chromium is
// in `slow`: test/docs/test-tiers.test.ts checks both.
'use strict';

/** Files of the slow tier, relative to dist/test: processes, replicas, Redis, fuzzers, the image, memory probes, Chromium. */
const SLOW = [
  // processes: the CLI binary, svc started as a child process, replicas, the image
  'cli/**',
  'ship/**',
  'docs/doc-examples.test.js',
  'http/clean-start.test.js',
  'http/lean-start.test.js',
  'http/process.test.js',
  'http/tracing-process.test.js',
  'http/replicas-process.test.js',
  'http/runs-replicas.test.js',
  'http/ledger-replicas.test.js',
  'http/ledger-canaries.test.js',
  'http/ledger-intents-kill.test.js',
  'http/ledger-store-writer.test.js',
  // Redis (a real redis-server per suite)
  'adapters/change-ledger.contract.test.js',
  'adapters/redis-*.test.js',
  'adapters/run-stores.contract.test.js',
  'http/rate-limits.test.js',
  'http/redis-*.test.js',
  'http/replicas.test.js',
  'http/session-owners.test.js',
  'http/fleet-replicas.test.js',
  'http/verify-replicas.test.js',
  // fuzzers, memory probes, every scenario replayed, Chromium
  'security/api-fuzz.test.js',
  'http/sources-fuzz.test.js',
  'mcp/mcp-memory.test.js',
  'evaluation/scenarios-replay.test.js',
  'evaluation/baselines.test.js',
  'http/docs-page.test.js',
];

const TIERS = {
  unit: ['unit/**/*.test.js'],
  adapters: ['adapters/**/*.test.js'],
  http: ['http', 'mcp', 'docs', 'security', 'evaluation'].map((d) => `${d}/**/*.test.js`),
  slow: SLOW.map((p) => (p.endsWith('.js') ? p : `${p}/*.test.js`)),
};

const inDist = (p) => `dist/test/${p}`;
const tier = process.env.SVC_TEST_TIER;
if (tier !== undefined && !(tier in TIERS)) throw new Error(`SVC_TEST_TIER=${tier}: the tiers are ${Object.keys(TIERS).join(', ')}`);

module.exports = {
  require: ['dist/test/support/setup.js'],
  timeout: 20000,
  exit: true,
  reporter: 'dist/test/support/ci-reporter.js',
  spec: tier ? TIERS[tier].map(inDist) : ['dist/test/**/*.test.js'],
  ignore: ['dist/test/reliability/**', ...(tier && tier !== 'slow' ? SLOW.map((p) => inDist(p.endsWith('.js') ? p : `${p}/**`)) : [])],
  // for test/docs/test-tiers.test.ts
  TIERS,
  SLOW,
};
