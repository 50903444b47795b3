import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../infrastructure/project-root.js';
import { copyParts, execForm, keyValues, parseDockerfile, type Stage } from './dockerfile-parser.js';
import { DIST_NOT_SHIPPED, RUNTIME_PATHS } from './image-layout.js';

const root = projectRoot();
const text = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const dockerfile = parseDockerfile(text);
const runtime = dockerfile.stages[dockerfile.stages.length - 1];
const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
const SECRETISH = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)/i;

describe('Dockerfile', () => {
  describe('the parser the checks rely on', () => {
    it('joins continuations, drops comments and splits stages', () => {
      const d = parseDockerfile('ARG V=1\n# c\nFROM a:1 AS One\nENV A=1 \\\n  # inner\n  B="x y"\nFROM b\nCOPY --from=one /x /y\n');
      expect(d.globalArgs.map((i) => i.args)).to.deep.equal(['V=1']);
      expect(d.stages.map((s) => [s.image, s.name])).to.deep.equal([
        ['a:1', 'one'],
        ['b', undefined],
      ]);
      expect(keyValues(d.stages[0].instructions[0])).to.deep.equal({ A: '1', B: 'x y' });
      expect(copyParts(d.stages[1].instructions[0])).to.deep.equal({ flags: { from: 'one' }, sources: ['/x'], dest: '/y' });
    });
  });

  it('is multi-stage: build, production deps, runtime', () => {
    expect(dockerfile.stages.map((s) => s.name)).to.deep.equal(['build', 'deps', 'runtime']);
  });

  it('builds every stage on a supported Node LTS slim image, never Node 20 (end of life)', () => {
    for (const stage of dockerfile.stages) {
      const m = /^node:(\d+)(?:[.\d]*)-(bookworm|trixie)-slim(?:@sha256:[0-9a-f]{64})?$/.exec(stage.image);
      expect(m, stage.image).to.not.equal(null);
      expect([22, 24]).to.include(Number(m![1]));
    }
  });

  it('installs only production dependencies for the runtime, from the lockfile', () => {
    const deps = dockerfile.stages.find((s) => s.name === 'deps')!;
    expect(
      all(deps, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).to.match(/npm ci --omit=dev\b/);
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    expect(
      all(build, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).to.contain('npm run build');
    const fromNodeModules = all(runtime, 'COPY')
      .map(copyParts)
      .find((c) => c.sources.some((s) => s.endsWith('/node_modules')));
    expect(fromNodeModules?.flags.from).to.equal('deps');
    expect(
      all(runtime, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).to.not.match(/npm (ci|install)/);
  });

  it('the runtime stage copies dist, node_modules, the built-in prompts, the scenarios and package.json, nothing else', () => {
    const copies = all(runtime, 'COPY').map(copyParts);
    for (const c of copies) expect(c.flags.from, `COPY at ${JSON.stringify(c)}`).to.be.oneOf(['build', 'deps']);
    const shipped = copies.map((c) => c.dest.replace(/^\.\//, '').replace(/\/$/, ''));
    expect([...shipped].sort()).to.deep.equal([...RUNTIME_PATHS].sort());
    const build = dockerfile.stages.find((s) => s.name === 'build')!;
    for (const dir of DIST_NOT_SHIPPED)
      expect(
        all(build, 'RUN')
          .map((i) => i.args)
          .join(' '),
      ).to.contain(dir);
    expect(all(runtime, 'WORKDIR').map((i) => i.args)).to.deep.equal(['/app']);
  });

  it("docs/deploying.md's Image section names every path the runtime stage copies", () => {
    const deploying = readFileSync(path.join(root, 'docs/deploying.md'), 'utf8');
    const image = deploying.slice(deploying.indexOf('\n## Image\n'), deploying.indexOf('\n## Helm chart\n'));
    const shipped = all(runtime, 'COPY').map((c) => copyParts(c).dest.replace(/^\.\//, '').replace(/\/$/, ''));
    expect(shipped.filter((p) => !image.includes(`\`${p}\``))).to.deep.equal([]);
  });

  it('binds 0.0.0.0 on port 3456 and keeps data in the /data volume', () => {
    const env = Object.assign({}, ...all(runtime, 'ENV').map(keyValues)) as Record<string, string>;
    expect(env).to.include({ HOST: '0.0.0.0', PORT: '3456', SVC_DATA_DIR: '/data', NODE_ENV: 'production' });
    expect(all(runtime, 'EXPOSE').map((i) => i.args)).to.deep.equal(['3456']);
    const volumes = all(runtime, 'VOLUME')
      .map((i) => execForm(i.args) ?? i.args.split(' '))
      .flat();
    expect(volumes).to.deep.equal(['/data']);
  });

  it('runs as a numeric non-root user, with /data owned by it', () => {
    const users = all(runtime, 'USER').map((i) => i.args);
    expect(users).to.have.length(1);
    const [uid, gid] = users[0].split(':');
    expect(uid).to.match(/^\d+$/);
    expect(Number(uid)).to.be.greaterThan(0);
    expect(gid === undefined || Number(gid) > 0).to.equal(true);
    const userAt = all(runtime, 'USER')[0].line;
    expect(runtime.instructions.filter((i) => i.line > userAt && i.keyword === 'RUN')).to.deep.equal([]);
    expect(
      all(runtime, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).to.contain(`chown ${users[0]} /data`);
  });

  it('has a HEALTHCHECK on /healthz and starts the server in exec form', () => {
    const checks = all(runtime, 'HEALTHCHECK');
    expect(checks).to.have.length(1);
    expect(checks[0].args)
      .to.match(/--interval=\d+s/)
      .and.match(/--timeout=\d+s/)
      .and.contain('/healthz');
    expect(checks[0].args).to.contain('127.0.0.1').and.contain('process.env.PORT');
    expect(execForm(all(runtime, 'CMD')[0].args)).to.deep.equal(['node', 'dist/interfaces/main.js']);
  });

  it('bakes in no secret: no ENV or ARG that looks like a credential, no secret files copied', () => {
    const declared = dockerfile.stages.flatMap((s) => [...all(s, 'ENV'), ...all(s, 'ARG')]).concat(dockerfile.globalArgs);
    for (const ins of declared) {
      for (const key of Object.keys(keyValues(ins))) expect(key, `line ${ins.line}`).to.not.match(SECRETISH);
    }
    expect(text).to.not.match(/--mount=type=secret|\.npmrc|id_rsa|\.pem\b/);
    const ignore = readFileSync(path.join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(ignore).to.include.members(['.git', 'node_modules', 'dist', '.svc-data', '**/.env', '.npmrc']);
  });
});
