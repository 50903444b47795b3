import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../infrastructure/config/config.js';
import { parsePromptsConfig } from '../../infrastructure/config/prompts-config.js';

describe('prompts config', () => {
  it('defaults: built-ins, TTL 86400 s, github.com allowlist, no token', () => {
    const c = parsePromptsConfig({});
    expect(c.configuredRepo).to.equal(undefined);
    expect(c.cacheTtlSeconds).to.equal(86400);
    expect(c.allowedRepoHosts).to.deep.equal(['github.com', 'www.github.com']);
    expect(c.gitToken).to.equal(undefined);
    expect(c.repoInternalHosts).to.deep.equal([]);
  });

  it('reads SVC_REPO_INTERNAL_HOSTS: lower-case, trailing dot dropped, duplicates folded', () => {
    const c = parsePromptsConfig({ SVC_REPO_INTERNAL_HOSTS: ' Git.Corp.example. , gitea ,git.corp.example,,localhost' });
    expect(c.repoInternalHosts).to.deep.equal(['git.corp.example', 'gitea', 'localhost']);
  });

  it('finds the built-in prompts folder in the project, not under dist', () => {
    const dir = parsePromptsConfig({}).builtinDir;
    expect(dir.split(path.sep)).to.not.include('dist');
    expect(existsSync(path.join(dir, 'debug-crashloop.md'))).to.equal(true);
  });

  it('reads the configured repo with path and branch, source scrubbed, no IP gating', () => {
    const c = parsePromptsConfig({
      SVC_USER_PROMPTS_REPO: 'https://bot:t0ken-value@git.internal/acme/prompts.git/',
      SVC_USER_PROMPTS_PATH: './team/',
      SVC_USER_PROMPTS_BRANCH: 'release/2',
      SVC_USER_PROMPTS_CACHE_TTL: '0',
      SVC_GIT_TOKEN: 'server-token',
      SVC_ALLOWED_REPO_HOSTS: ' GitHub.com , git.internal ',
    });
    expect(c.configuredRepo).to.deep.equal({
      url: 'https://bot:t0ken-value@git.internal/acme/prompts.git',
      source: 'https://***:***@git.internal/acme/prompts.git/',
      scheme: 'https',
      host: 'git.internal',
      subPath: 'team',
      branch: 'release/2',
    });
    expect(c.cacheTtlSeconds).to.equal(0);
    expect(c.gitToken).to.equal('server-token');
    expect(c.allowedRepoHosts).to.deep.equal(['github.com', 'git.internal']);
    expect(parsePromptsConfig({ SVC_USER_PROMPTS_REPO: 'http://10.0.0.5/p.git' }).configuredRepo!.host).to.equal('10.0.0.5');
  });

  const BAD: [Record<string, string>, RegExp][] = [
    [{ SVC_USER_PROMPTS_REPO: 'git@github.com:a/b.git' }, /^Invalid configuration: SVC_USER_PROMPTS_REPO must be an http\(s\) URL/],
    [{ SVC_USER_PROMPTS_REPO: 'ssh://github.com/a/b' }, /^Invalid configuration: SVC_USER_PROMPTS_REPO must use http or https, got ssh$/],
    [
      { SVC_USER_PROMPTS_REPO: 'https://github.com/a/b', SVC_USER_PROMPTS_PATH: '../x' },
      /SVC_USER_PROMPTS_PATH must be a folder inside the repository: relative path cannot escape/,
    ],
    [{ SVC_USER_PROMPTS_REPO: 'https://github.com/a/b', SVC_USER_PROMPTS_PATH: '/etc' }, /SVC_USER_PROMPTS_PATH .*cannot be absolute/],
    [{ SVC_USER_PROMPTS_REPO: 'https://github.com/a/b', SVC_USER_PROMPTS_BRANCH: 'a b' }, /SVC_USER_PROMPTS_BRANCH may hold only/],
    [{ SVC_USER_PROMPTS_CACHE_TTL: '-1' }, /SVC_USER_PROMPTS_CACHE_TTL must be a whole number/],
    [{ SVC_USER_PROMPTS_CACHE_TTL: '1d' }, /SVC_USER_PROMPTS_CACHE_TTL must be a whole number/],
    [{ SVC_ALLOWED_REPO_HOSTS: 'https://github.com' }, /SVC_ALLOWED_REPO_HOSTS must be a comma-separated list of host names/],
    [{ SVC_ALLOWED_REPO_HOSTS: 'github.com:443' }, /SVC_ALLOWED_REPO_HOSTS/],
    [
      { SVC_REPO_INTERNAL_HOSTS: 'https://git.corp' },
      /^Invalid configuration: SVC_REPO_INTERNAL_HOSTS must be a comma-separated list of DNS host names \(no scheme, port, path or IP address\), got "https:\/\/git.corp"$/,
    ],
    [{ SVC_REPO_INTERNAL_HOSTS: 'git.corp:8443' }, /SVC_REPO_INTERNAL_HOSTS must be/],
    [{ SVC_REPO_INTERNAL_HOSTS: 'git.corp/x' }, /SVC_REPO_INTERNAL_HOSTS must be/],
    [{ SVC_REPO_INTERNAL_HOSTS: '10.0.0.5' }, /SVC_REPO_INTERNAL_HOSTS must be .*got "10.0.0.5"/],
    [{ SVC_REPO_INTERNAL_HOSTS: '[fd00::1]' }, /SVC_REPO_INTERNAL_HOSTS must be/],
    [{ SVC_REPO_INTERNAL_HOSTS: '*.corp' }, /SVC_REPO_INTERNAL_HOSTS must be/],
    [{ SVC_REPO_INTERNAL_HOSTS: 'bad..name' }, /SVC_REPO_INTERNAL_HOSTS must be/],
    [{ SVC_REPO_INTERNAL_HOSTS: 'gït.corp' }, /SVC_REPO_INTERNAL_HOSTS must be/],
  ];
  for (const [env, message] of BAD) {
    it(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => parsePromptsConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('never echoes credentials of a bad repo URL', () => {
    expect(() => parsePromptsConfig({ SVC_USER_PROMPTS_REPO: 'ftp://me:s3cret-value@h/x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.not.contains('s3cret-value');
    expect(() => parsePromptsConfig({ SVC_USER_PROMPTS_REPO: 's3cret-value@h:x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.not.contains('s3cret-value');
  });
});
