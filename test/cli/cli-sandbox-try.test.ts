import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { runCli, startCli } from '../support/run-cli.js';

/** `svc sandbox --try`: the sandbox, a model replaying the scenario's transcript and svc on them, and the commands to run. */
describe('svc sandbox --try', function () {
  this.timeout(120_000);

  it('starts all three, prints the commands; the printed curl line runs remediate on them; SIGTERM stops everything', async () => {
    const { child, output, exited } = startCli(['sandbox', '--scenario', 'web-image-tag-typo', '--try']);
    let answer: any;
    try {
      for (let i = 0; i < 600 && !/^ {2}kubectl /m.test(output()); i++) await new Promise((r) => setTimeout(r, 50));
      const out = output();
      expect(out).to.match(/^ready sandbox https:\/\/127\.0\.0\.1:\d+ scenario web-image-tag-typo kubeconfig \S+$/m);
      expect(out).to.match(
        /^ready svc http:\/\/127\.0\.0\.1:\d+ model transcript of web-image-tag-typo \(hand-written\): replayed answers, not a live model$/m,
      );
      const lines = out.split('\n').filter((l) => l.startsWith('  '));
      expect(lines.map((l) => l.trim().split(' ')[0])).to.deep.equal(['export', 'npx', 'curl', 'kubectl']);
      expect(lines[1]).to.equal(`  npx svc run remediate --issue 'web in namespace shop has not been ready since this morning'\\''s release'`);
      // the printed lines as a user pastes them: the export, then the curl command
      const script = `${lines[0].trim()}\n${lines[2].trim()}\n`;
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile('/bin/sh', ['-c', script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (err, so) => (err ? reject(err) : resolve(so))),
      );
      answer = JSON.parse(stdout);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
    const result = answer.data.result;
    expect(result.status).to.equal('awaiting_approval');
    expect(result.rootCause).to.contain('registry.example/shop/web:1.4.20');
    expect(result.actions[0].patch).to.deep.equal({
      spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example/shop/web:1.4.2' }] } } },
    });
  });

  it('refuses --try without a scenario, and a scenario without a transcript, before starting anything', async () => {
    const none = await runCli(['sandbox', '--try'], {});
    expect([none.code, none.stderr]).to.deep.equal([2, 'svc: --try needs --scenario NAME\n']);
    const unknown = await runCli(['sandbox', '--try', '--scenario', 'no-such-scenario'], {});
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/^svc: no scenario named no-such-scenario in /);
  });
});
