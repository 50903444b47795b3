import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** File content, or content with a mode, or a symlink target. */
export type RepoFile = string | { text: string; mode?: number } | { symlink: string };

export interface RepoSpec {
  /** Files on `main`. */
  files: Record<string, RepoFile>;
  /** Other branches: name -> files (each branch is its own root commit). */
  branches?: Record<string, Record<string, RepoFile>>;
  /** Serve only to Basic auth whose password is the server token. */
  private?: boolean;
  /** Branches a pre-receive hook refuses to update, as a hosting service's branch protection does. */
  protectedBranches?: string[];
}

export interface RecordedRequest {
  host: string;
  method: string;
  path: string;
  authorization?: string;
}

export interface GitHttpServer {
  port: number;
  /** `http://localhost:PORT`: tests address the server by hostname. */
  baseUrl: string;
  /** The same server by IP literal: a different host for the credential rule. */
  ipBaseUrl: string;
  /** The password a private repo accepts. */
  token: string;
  /** A port nothing listens on. */
  refusedPort: number;
  /** Every request the server received, in order. */
  requests: RecordedRequest[];
  /** Text every error-text endpoint answers with. */
  plainErrorBody: string;
  /** Bare repository folder of a repo, to add commits in tests. */
  repoDir(name: string): string;
  /** Replaces the content of `main` in a repo with a new commit. */
  commit(name: string, files: Record<string, RepoFile>): void;
  /**
   * Pushes (receive-pack) are served only to Basic auth whose password is the
   * token; `readOnlyToken` may fetch private repos but is answered 403 on a push.
   */
  readOnlyToken: string;
  /** Runs `fn` once, when the next push to `name` starts (before its ref discovery): a test moves a branch under a push this way. */
  beforeNextPush(name: string, fn: () => void): void;
  /** Replaces a branch with a new root commit holding `files` (an unrelated history: a push on top of the old tip is non-fast-forward). */
  resetBranch(name: string, branch: string, files: Record<string, RepoFile>): void;
  /** `git show <ref>:<path>` in the bare repo; undefined when the path or ref does not exist. */
  show(name: string, ref: string, file: string): string | undefined;
  /** `git <args>` in the bare repo (read it back as a person would). */
  git(name: string, args: string[]): string;
  close(): Promise<void>;
}

function git(cwd: string, args: string[], home: string): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
    encoding: 'utf8',
  });
}

function writeTree(dir: string, files: Record<string, RepoFile>) {
  for (const [rel, f] of Object.entries(files)) {
    const full = path.join(dir, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    if (typeof f === 'string') writeFileSync(full, f);
    else if ('symlink' in f) symlinkSync(f.symlink, full);
    else {
      writeFileSync(full, f.text);
      if (f.mode !== undefined) chmodSync(full, f.mode);
    }
  }
}

/** Real git builds each repo: a work tree per branch, pushed into a bare repo the backend serves. */
function createRepo(root: string, home: string, name: string, spec: RepoSpec): string {
  const bare = path.join(root, `${name}.git`);
  mkdirSync(path.dirname(bare), { recursive: true });
  git(root, ['init', '-q', '--bare', '-b', 'main', bare], home);
  const branches = { main: spec.files, ...(spec.branches ?? {}) };
  for (const [branch, files] of Object.entries(branches)) pushBranch(root, home, bare, branch, files);
  // pushes are allowed (the node front checks the token); protection is a pre-receive hook, as on a hosting service
  git(bare, ['config', 'http.receivepack', 'true'], home);
  if (spec.protectedBranches?.length) {
    const refs = spec.protectedBranches.map((b) => `refs/heads/${b}`).join(' ');
    const hook = [
      '#!/bin/sh',
      'while read old new ref; do',
      `  for p in ${refs}; do`,
      '    if [ "$ref" = "$p" ]; then echo "GH006: Protected branch update failed for $ref: changes must be made through a pull request." >&2; exit 1; fi',
      '  done',
      'done',
      'exit 0',
      '',
    ].join('\n');
    writeFileSync(path.join(bare, 'hooks', 'pre-receive'), hook);
    chmodSync(path.join(bare, 'hooks', 'pre-receive'), 0o755);
  }
  return bare;
}

let workCounter = 0;
function pushBranch(root: string, home: string, bare: string, branch: string, files: Record<string, RepoFile>) {
  const work = path.join(root, `work-${++workCounter}`);
  mkdirSync(work);
  git(work, ['init', '-q', '-b', branch], home);
  writeTree(work, files);
  git(work, ['add', '-A'], home);
  git(work, ['commit', '-q', '--allow-empty', '-m', `content of ${branch}`], home);
  git(work, ['push', '-q', '--force', bare, `${branch}:${branch}`], home);
  rmSync(work, { recursive: true, force: true });
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** node:http in front of `git http-backend` (CGI): the smart-HTTP protocol exactly as git serves it. */
function cgi(root: string, home: string, pathInfo: string, req: IncomingMessage, res: ServerResponse, body: Buffer, user?: string) {
  const query = req.url!.includes('?') ? req.url!.slice(req.url!.indexOf('?') + 1) : '';
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: pathInfo,
    QUERY_STRING: query,
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    CONTENT_LENGTH: String(body.length),
    REMOTE_ADDR: '127.0.0.1',
  };
  if (user) env.REMOTE_USER = user;
  if (req.headers['git-protocol']) env.HTTP_GIT_PROTOCOL = String(req.headers['git-protocol']);
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
  const child = spawn(GIT_HTTP_BACKEND, [], { env });
  child.stdin.on('error', () => undefined); // the backend may exit before reading a body it does not need
  child.stdin.end(body);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const text = head.toString('latin1');
    const end = text.search(/\r?\n\r?\n/);
    if (end === -1) return;
    const sep = text.slice(end).startsWith('\r\n\r\n') ? 4 : 2;
    let status = 200;
    for (const line of text.slice(0, end).split(/\r?\n/)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    headersDone = true;
    res.write(head.subarray(end + sep));
  });
  child.stdout.on('end', () => res.end());
  child.on('error', () => res.destroy());
}

/** Starts the server on 127.0.0.1:0 with the given repos (bare, built by real git in a temp folder). */
export async function startGitHttpServer(repos: Record<string, RepoSpec>, token = 'test-git-token-0123456789'): Promise<GitHttpServer> {
  const readOnlyToken = `${token}-read-only`;
  const pushHooks = new Map<string, () => void>();
  const root = mkdtempSync(path.join(tmpdir(), 'svc-git-'));
  const home = path.join(root, '.home');
  mkdirSync(home);
  const bareDirs = new Map<string, string>();
  for (const [name, spec] of Object.entries(repos)) bareDirs.set(name, createRepo(root, home, name, spec));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const plainErrorBody = 'repository store is offline for maintenance (ticket OPS-42)';
  let port = 0;

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://placeholder');
    requests.push({ host: req.headers.host ?? '', method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    const body = await readBody(req);
    const [, first, ...rest] = url.pathname.split('/');
    const tail = `/${rest.join('/')}${url.search}`;
    if (first === 'redirect' || first === 'same-host-redirect') {
      const host = first === 'redirect' ? `127.0.0.1:${port}` : `localhost:${port}`;
      res.writeHead(302, { Location: `http://${host}${tail}` }).end();
      return;
    }
    if (first === 'redirect-to') {
      // /redirect-to/<host name>/<path>: a redirect to the same port on a host the test names
      const [target, ...more] = rest;
      res.writeHead(302, { Location: `http://${target}:${port}/${more.join('/')}${url.search}` }).end();
      return;
    }
    if (first === 'error-text') {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${plainErrorBody}\n`);
      return;
    }
    if (first === 'error-html') {
      res.writeHead(500, { 'Content-Type': 'text/html' }).end('<html><body>internal secret-ish page</body></html>');
      return;
    }
    if (first === 'not-a-repo') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Welcome to a web page</body></html>');
      return;
    }
    if (first === 'echo-auth') {
      // a hostile or careless server that reflects the credential it received
      const auth = req.headers.authorization ?? '';
      const decoded = Buffer.from(auth.replace(/^Basic /i, ''), 'base64').toString('utf8');
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`received ${auth} (${decoded}) for ${req.url}\n`);
      return;
    }
    if (first === 'hang') return; // never answers: the client's timeout must fire
    // `owner/name.git` as hosting services spell it: a repo whose name has a slash takes two segments
    const nested = rest.length > 0 && repos[`${first}/${rest[0].replace(/\.git$/, '')}`] !== undefined;
    const name = nested ? `${first}/${rest.shift()!.replace(/\.git$/, '')}` : first.replace(/\.git$/, '');
    const spec = repos[name];
    if (!spec) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Repository not found\n');
      return;
    }
    const isPush = url.searchParams.get('service') === 'git-receive-pack' || url.pathname.endsWith('/git-receive-pack');
    if (isPush && req.method === 'GET') {
      const hook = pushHooks.get(name);
      pushHooks.delete(name);
      hook?.();
    }
    let user: string | undefined;
    if (spec.private || isPush) {
      const m = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      const password = colon === -1 ? undefined : decoded.slice(colon + 1);
      if (password !== token && !(password === readOnlyToken && !isPush)) {
        if (password === readOnlyToken) {
          res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Permission to ${name}.git denied: the token has read access only\n`);
          return;
        }
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test git"', 'Content-Type': 'text/plain' }).end('Authentication required\n');
        return;
      }
      user = decoded.slice(0, colon);
    }
    cgi(root, home, `/${name}.git${rest.length ? `/${rest.join('/')}` : ''}`, req, res, body, user);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;

  return {
    port,
    baseUrl: `http://localhost:${port}`,
    ipBaseUrl: `http://127.0.0.1:${port}`,
    token,
    refusedPort: await freePort(),
    requests,
    plainErrorBody,
    repoDir: (name) => bareDirs.get(name)!,
    commit: (name, files) => pushBranch(root, home, bareDirs.get(name)!, 'main', files),
    readOnlyToken,
    beforeNextPush: (name, fn) => void pushHooks.set(name, fn),
    resetBranch: (name, branch, files) => pushBranch(root, home, bareDirs.get(name)!, branch, files),
    show: (name, ref, file) => {
      try {
        return execFileSync('git', ['show', `${ref}:${file}`], {
          cwd: bareDirs.get(name)!,
          env: { PATH: process.env.PATH, HOME: home },
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch {
        return undefined;
      }
    },
    git: (name, args) => git(bareDirs.get(name)!, args, home),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
