import { expect } from 'chai';
import { shellWord } from '../../domain/shell-word.js';
import { commandLine, nextCommandText } from '../../interfaces/cli/next-command.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { runCli } from '../support/run-cli.js';
import { WorkflowStandIns } from '../support/workflow-harness.js';

/** Splits a printed command line into words (the single-quote quoting shellWord writes). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]);
  return out;
}

/** The command printed after "Next:" in a `svc run` output. */
function nextCommand(stdout: string): string[] {
  const m = /^Next: .*\n {2}(svc run .*)$/m.exec(stdout);
  if (!m) throw new Error(`no next command in:\n${stdout}`);
  return words(m[1]).slice(1);
}

describe('svc run drives the deployment workflow from the terminal', function () {
  this.timeout(60_000);
  let s: WorkflowStandIns;
  let server: AccessServer;
  let env: Record<string, string>;

  before(async () => {
    s = await WorkflowStandIns.start();
    server = await startAccessServer({ env: s.env(), overrides: s.overrides() });
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });
  after(async () => {
    await server.stop();
    await s.close();
  });

  it('quotes what the shell would split or expand', () => {
    expect(shellWord('sol_ab12')).to.equal('sol_ab12');
    expect(shellWord(`{"a":"it's"}`)).to.equal(`'{"a":"it'\\''s"}'`);
    expect(words(commandLine({ tool: 'answerQuestion', params: { stage: 'open', answers: { open: "it's $HOME" } } }))).to.deep.equal([
      'svc',
      'run',
      'answerQuestion',
      '--stage',
      'open',
      '--answers',
      `{"open":"it's $HOME"}`,
    ]);
    expect(nextCommandText({ nextSteps: [] })).to.match(/Done/);
    expect(nextCommandText({ status: 'ok' })).to.equal(undefined);
  });

  it('prints the next command at each step; following them ends with ready objects', async () => {
    s.answer();
    let run = await runCli(['run', 'recommend', '--intent', 'an nginx web server for the shop front end'], env);
    expect(run.code, run.stderr).to.equal(0);
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const args = nextCommand(run.stdout);
      seen.push(args[1] === 'answerQuestion' ? `${args[1]}:${args[args.indexOf('--stage') + 1]}` : args[1]);
      const at = args.indexOf('--answers');
      if (at > 0) {
        const answers = JSON.parse(args[at + 1]) as Record<string, unknown>;
        // the suggested defaults are kept; only what has no default is filled in
        if ('deployment-image' in answers) {
          expect(answers['deployment-image']).to.equal('<string>');
          answers['deployment-image'] = 'nginx:1.25';
        }
        args[at + 1] = JSON.stringify(answers);
      }
      run = await runCli(args, env);
      expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).to.equal(0);
      if (args[1] === 'deployManifests') break;
    }
    expect(seen).to.deep.equal([
      'chooseSolution',
      'answerQuestion:required',
      'answerQuestion:basic',
      'answerQuestion:advanced',
      'answerQuestion:open',
      'generateManifests',
      'deployManifests',
    ]);
    expect(run.stdout).to.match(/^status: ready$/m);
    expect(run.stdout).to.include('Done: nothing more to run for this solution.');
    expect(s.kube.objects.get('/apis/apps/v1/namespaces/default/deployments/web')!.status.availableReplicas).to.equal(2);
  });
});
