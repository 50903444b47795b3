import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../infrastructure/project-root.js';
import { waitFor } from '../support/svc-process.js';
import { DIST_NOT_SHIPPED, RUNTIME_PATHS } from './image-layout.js';

const NETWORK_TROUBLE = /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|network|socket hang up|request to https?:\/\/\S+ failed/i;

/**
 * SLOW (up to 180 s, mostly `npm ci`): proves the runtime stage's file set is
 * enough to start. No Docker engine here, so the image's layout is rebuilt in
 * a temporary folder: the built output and built-in prompts, production
 * dependencies installed from the lockfile with `npm ci --omit=dev`, then the
 * server started from there and asked for /healthz. Skipped, saying so, when
 * the npm registry cannot be reached.
 */
describe('image start check [slow: npm ci --omit=dev, 180 s timeout]', function () {
  this.timeout(180_000);
  const root = projectRoot();
  let dir: string;

  before(function () {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-image-'));
    for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(root, file), path.join(dir, file));
    cpSync(path.join(root, 'dist'), path.join(dir, 'dist'), {
      recursive: true,
      filter: (src) => !DIST_NOT_SHIPPED.some((d) => src === path.join(root, d) || src.startsWith(path.join(root, d) + path.sep)),
    });
    mkdirSync(path.join(dir, 'infrastructure', 'prompts'), { recursive: true });
    cpSync(path.join(root, 'infrastructure/prompts/builtin'), path.join(dir, 'infrastructure/prompts/builtin'), { recursive: true });
    cpSync(path.join(root, 'scenarios'), path.join(dir, 'scenarios'), { recursive: true });
    const npm = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 150_000,
      env: { ...process.env, NODE_ENV: 'production', npm_config_update_notifier: 'false' },
    });
    const out = `${npm.stdout ?? ''}${npm.stderr ?? ''}${npm.error?.message ?? ''}`;
    if (npm.status !== 0) {
      if (NETWORK_TROUBLE.test(out)) {
        console.warn(`    SKIPPED: the npm registry could not be reached for npm ci --omit=dev:\n${out.slice(-600)}`);
        this.skip();
      }
      throw new Error(`npm ci --omit=dev failed (exit ${npm.status}):\n${out.slice(-2000)}`);
    }
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('lays out exactly what the runtime stage copies, without dev dependencies', () => {
    for (const p of RUNTIME_PATHS) expect(existsSync(path.join(dir, p)), p).to.equal(true);
    // (typescript stays: tsoa, a runtime dependency, depends on it)
    for (const dev of ['mocha', 'chai', 'nock', 'supertest', 'dependency-cruiser', 'autocannon']) {
      expect(existsSync(path.join(dir, 'node_modules', dev)), dev).to.equal(false);
    }
    expect(existsSync(path.join(dir, 'dist', 'test'))).to.equal(false);
  });

  it('lists the scenarios svc sandbox and svc eval serve from that folder (product code, no test code)', () => {
    const list = spawnSync(process.execPath, ['dist/interfaces/cli/main.js', 'sandbox', '--list'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(list.status, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines.length).to.be.at.least(150);
    expect(lines.filter((l) => l.startsWith('adv-')).length).to.be.at.least(30);
  });

  it('starts from that folder and answers /healthz, with the built-in prompts found', async () => {
    const child = spawn(process.execPath, ['dist/interfaces/main.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /svc listening/.test(out) || child.exitCode !== null, 'svc listening');
      expect(out).to.match(/svc listening/);
      const url = /"url":"([^"]+)"/.exec(out)![1];
      const health = await fetch(`${url}/healthz`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok' });
      const prompts = await fetch(`${url}/api/v1/prompts`);
      const body = (await prompts.json()) as { data: { source: string; prompts: unknown[] } };
      expect(body.data.source).to.equal('built-in');
      expect(body.data.prompts.length).to.be.greaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(out).to.contain('svc stopped');
  });
});
