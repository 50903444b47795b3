import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { ToolContext, ToolHandler } from '../../application/tool-handler.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { runCli } from '../support/run-cli.js';

/** A tool use case that answers with the input it was given, and remembers each call. */
class EchoHandler implements ToolHandler {
  readonly calls: Record<string, unknown>[] = [];
  async execute(input: Record<string, unknown>, _context: ToolContext) {
    this.calls.push(input);
    return { echoed: input };
  }
}

describe('svc CLI: tools, run, status, exit codes', function () {
  this.timeout(60_000);
  let server: AccessServer;
  let env: Record<string, string>;
  let workDir: string;
  const echo = new EchoHandler();

  before(async () => {
    server = await startAccessServer({ overrides: { toolHandlers: { deployManifests: echo, answerQuestion: echo } } });
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
    workDir = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  });

  after(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  describe('--help', () => {
    const commands = [[], ['serve'], ['tools'], ['run'], ['status'], ['prompts'], ['prompts', 'list'], ['prompts', 'get'], ['prompts', 'upload']];
    for (const command of commands) {
      it(`svc ${[...command, '--help'].join(' ')} prints its usage and exits 0`, async () => {
        const run = await runCli([...command, '--help']);
        expect(run.code).to.equal(0);
        expect(run.stdout).to.include(`Usage: svc${command.length ? ` ${command.join(' ')}` : ''}`);
      });
    }

    it('svc run <tool> --help lists that tool’s parameters from its definition', async () => {
      const run = await runCli(['run', 'remediate', '--help']);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.include('Parameters of remediate');
      expect(run.stdout).to.match(/--evidence <string>\s+Optional evidence/);
      expect(run.stdout).to.include('--mode <manual|automatic>');
    });
  });

  describe('svc tools', () => {
    it('lists the nine tools', async () => {
      const run = await runCli(['tools'], env);
      expect(run.code).to.equal(0);
      for (const def of TOOL_DEFINITIONS) expect(run.stdout).to.match(new RegExp(`^${def.name}\\s+${def.category}`, 'm'));
    });

    it('filters by category, tag and search, combined, as the REST catalog does', async () => {
      const names = async (...args: string[]) => {
        const run = await runCli(['tools', '-o', 'json', ...args], env);
        expect(run.code, run.stderr).to.equal(0);
        return (JSON.parse(run.stdout) as { name: string }[]).map((t) => t.name);
      };
      expect(await names('--category', 'Deployment')).to.deep.equal(['chooseSolution', 'answerQuestion', 'generateManifests', 'deployManifests']);
      expect(await names('--tag', 'troubleshooting,status')).to.deep.equal(['version', 'remediate']);
      expect(await names('--search', 'MANIFESTS')).to.deep.equal(['generateManifests', 'deployManifests']);
      expect(await names('--category', 'Deployment', '--tag', 'kubernetes', '--search', 'apply')).to.deep.equal(['deployManifests']);
      // any case; the server's exact name is sent (SPEC: exact category name)
      expect(await names('--category', 'deployment')).to.deep.equal(['chooseSolution', 'answerQuestion', 'generateManifests', 'deployManifests']);
      expect(await names('--category', 'ai tools')).to.deep.equal(await names('--category', 'AI Tools'));
      // a category that is none of them is a usage error naming them, never a silently empty list
      const none = await runCli(['tools', '--category', 'Nope'], env);
      expect(none.code).to.equal(2);
      expect(none.stderr).to.include('Unknown category "Nope": one of AI Tools, Deployment, Management, System, Troubleshooting, Documentation');
      expect((await runCli(['tools', '--search', 'nothing-matches-this'], env)).stdout.trim()).to.equal('No tools match.');
    });

    it('svc tools list is svc tools (the docs and habit say list); another word is a usage error', async () => {
      const list = await runCli(['tools', 'list'], env);
      expect(list.code, list.stderr).to.equal(0);
      expect(list.stdout).to.equal((await runCli(['tools'], env)).stdout);
      const other = await runCli(['tools', 'show'], env);
      expect(other.code).to.equal(2);
      expect(other.stderr).to.include('Unknown argument "show"');
    });
  });

  describe('svc run', () => {
    it('runs version and prints its result readably (YAML), or as JSON with --output json', async () => {
      const pretty = await runCli(['run', 'version'], env);
      expect(pretty.code).to.equal(0);
      expect(pretty.stdout).to.match(/^status: (healthy|degraded)$/m);
      expect(pretty.stdout).to.match(/^ {2}kubernetes:$/m);

      const json = await runCli(['run', 'version', '--output', 'json'], env);
      const data = JSON.parse(json.stdout) as { tool: string; executionTime: number; result: { system: { version: { version: string } } } };
      expect(data.tool).to.equal('version');
      expect(data.executionTime).to.be.a('number');
      expect(data.result.system.version.version).to.match(/^\d+\.\d+\.\d+/);
    });

    it('types --name value flags by the tool schema: numbers, JSON objects, enums', async () => {
      const run = await runCli(['run', 'deployManifests', '--solutionId', 'sol-1', '--timeout', '30', '-o', 'json'], env);
      expect(run.code, run.stderr).to.equal(0);
      expect((JSON.parse(run.stdout) as { result: unknown }).result).to.deep.equal({ echoed: { solutionId: 'sol-1', timeout: 30 } });

      const answers = await runCli(
        ['run', 'answerQuestion', '--solutionId=sol-1', '--stage', 'basic', '--answers', '{"replicas": 3, "name": "db"}', '-o', 'json'],
        env,
      );
      expect(answers.code, answers.stderr).to.equal(0);
      expect(echo.calls.at(-1)).to.deep.equal({ solutionId: 'sol-1', stage: 'basic', answers: { replicas: 3, name: 'db' } });
    });

    it('reads parameters from --json (a file or stdin), flags overriding it', async () => {
      const file = path.join(workDir, 'params.json');
      writeFileSync(file, JSON.stringify({ solutionId: 'from-file', timeout: 5 }));
      const run = await runCli(['run', 'deployManifests', '--json', file, '--timeout', '7', '-o', 'json'], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(echo.calls.at(-1)).to.deep.equal({ solutionId: 'from-file', timeout: 7 });

      const stdin = await runCli(['run', 'deployManifests', '--json', '-'], env, '{"solutionId": "from-stdin"}');
      expect(stdin.code, stdin.stderr).to.equal(0);
      expect(stdin.stdout).to.include('solutionId: from-stdin');
    });

    it('refuses invalid parameters locally with exit 2 and sends nothing', async () => {
      const before = echo.calls.length;
      const cases: [string[], RegExp][] = [
        [['run', 'deployManifests', '--solutionId', 'x', '--timeout', '601'], /timeout: Too big/],
        [['run', 'deployManifests', '--timeout', '30'], /solutionId: Invalid input/],
        [['run', 'deployManifests', '--solutionId', 'x', '--timeout', 'soon'], /--timeout of deployManifests expects a number/],
        [['run', 'deployManifests', '--solutionId', 'x', '--color', 'red'], /Unknown parameter --color for tool deployManifests/],
        [['run', 'answerQuestion', '--solutionId', 'x', '--stage', 'basic', '--answers', '[1]'], /expects a JSON object/],
        [['run', 'remediate', '--issue', 'x', '--evidence', 'e'.repeat(20001)], /evidence: Too big/],
        [['run', 'deployManifests', 'stray'], /Unexpected argument "stray"/],
        [['run', 'deployManifests', '--json', path.join(workDir, 'missing.json')], /Cannot read --json file .*ENOENT/],
        [['run', 'noSuchTool'], /Unknown tool noSuchTool/],
      ];
      for (const [args, message] of cases) {
        const run = await runCli(args, env);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.stderr, args.join(' ')).to.match(message);
        expect(run.stdout).to.equal('');
      }
      expect(echo.calls.length, 'no invalid call reached the server').to.equal(before);
    });

    it('exits 1 with the server’s message when the server says no', async () => {
      const failed = await runCli(['run', 'generateManifests', '--solutionId', `sol_${'0'.repeat(32)}`], env);
      expect(failed.code).to.equal(1);
      expect(failed.stderr).to.match(/^svc: VALIDATION_ERROR: Unknown or expired session: sol_0+\. Call recommend/m);

      const unauthorized = await runCli(['status'], { ...env, SVC_AUTH_TOKEN: 'not-the-right-token-at-all' });
      expect(unauthorized.code).to.equal(1);
      expect(unauthorized.stderr).to.include('svc: UNAUTHORIZED: Invalid bearer token');
      expect(unauthorized.stderr).to.not.include('not-the-right-token-at-all');

      const noToken = await runCli(['tools'], { SVC_URL: server.url });
      expect(noToken.code).to.equal(1);
      expect(noToken.stderr).to.include('UNAUTHORIZED');
    });

    it('--url and --token flags win over the environment', async () => {
      const run = await runCli(['--url', server.url, '--token', TEST_TOKEN, 'tools', '--search', 'version'], {
        SVC_URL: 'http://127.0.0.1:9',
        SVC_AUTH_TOKEN: 'wrong',
      });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^version\s+System/m);
    });
  });

  describe('svc status', () => {
    it('shows the version tool readably', async () => {
      const run = await runCli(['status'], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^svc \d+\.\d+\.\d+ \(node v\d+.*\): (healthy|degraded)$/m);
      for (const row of ['vector DB', 'patterns', 'embeddings', 'AI provider', 'kubernetes', 'tracing']) expect(run.stdout).to.include(row);

      const json = await runCli(['status', '-o', 'json'], env);
      expect((JSON.parse(json.stdout) as { system: { kubernetes: { connected: boolean } } }).system.kubernetes.connected).to.equal(false);
    });
  });

  describe('usage errors and unreachable servers', () => {
    it('exits 2 on a command line it cannot parse, without contacting anything', async () => {
      for (const args of [['bogus'], ['run'], ['tools', '--output', 'xml'], ['tools', '--nope'], ['prompts', 'get'], ['prompts', 'upload', workDir]]) {
        const run = await runCli(args, env);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.stderr, args.join(' ')).to.match(/error|svc:/);
      }
      const badUrl = await runCli(['tools'], { SVC_URL: 'ftp://example' });
      expect(badUrl.code).to.equal(2);
      expect(badUrl.stderr).to.include('only http and https');
      const badArg = await runCli(['prompts', 'get', 'x', '--arg', 'novalue'], env);
      expect(badArg.code).to.equal(2);
      expect(badArg.stderr).to.include('--arg expects name=value');
    });

    it('exits 1 when the server cannot be reached, naming where it looked', async () => {
      const run = await runCli(['tools'], { SVC_URL: 'http://127.0.0.1:9' });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/^svc: UNREACHABLE: Cannot reach svc at http:\/\/127\.0\.0\.1:9/m);
    });
  });
});
