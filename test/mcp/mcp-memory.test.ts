import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const PROBE = path.join(__dirname, '..', 'support', 'mcp-memory-probe.js');
/** Heap growth allowed between a warm baseline and the end of the sessions (JIT and inline caches still settle a little). */
const MAX_GROWTH = 2 * 1024 * 1024;

interface ProbeReport {
  growth: number;
  cycles: number;
  created: number;
  alive: number;
}

async function probe(cycles: number, warmup: number, env: Record<string, string> = {}): Promise<ProbeReport> {
  // Its own process, so the heap holds nothing of the other tests, and --expose-gc for full collections.
  const { stdout } = await run(process.execPath, ['--expose-gc', PROBE, String(cycles), String(warmup)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as ProbeReport;
}

describe('MCP over Streamable HTTP: no memory growth across sessions', function () {
  this.timeout(180_000);

  it('releases every per-request server and transport, and the heap returns to its warm baseline', async () => {
    const report = await probe(300, 200);
    expect(report.created).to.equal(2 * 5 * 500, 'one server and one transport per request, five requests per session');
    expect(report.alive, 'servers or transports still reachable after GC').to.equal(0);
    expect(report.growth, `heap grew by ${report.growth} bytes over ${report.cycles} sessions`).to.be.below(MAX_GROWTH);
  });

  it('would see a leak: retained servers and 16 KiB per session fail both checks', async () => {
    const report = await probe(150, 50, { PROBE_LEAK_BYTES: '16384' });
    expect(report.alive).to.be.above(0);
    expect(report.growth).to.be.above(MAX_GROWTH);
  });
});
