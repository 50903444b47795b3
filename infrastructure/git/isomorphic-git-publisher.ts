import fs from 'node:fs';
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../../domain/errors.js';
import type { RepoFile } from '../../domain/gitops/manifest-files.js';
import { normalizeSubPath } from '../../domain/prompts/repo-override.js';
import type { CloneWorkspace } from '../../domain/ports/clone-workspace.js';
import { GitPublishError, refusalOfStatus, type GitPublisher, type PublishOutcome, type PublishRequest } from '../../domain/ports/git-publisher.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import type { HostResolver } from './connect-guard.js';
import { credentialSpellings, httpFailureDetail } from './git-secrets.js';
import { FsRepoTree } from './fs-repo-tree.js';
import { runGitSession, type Git } from './git-session.js';
import { GitTransportError, type ScopedGitHttpClient, sizeLimitMessage } from './scoped-git-http-client.js';

export interface IsomorphicGitPublisherOptions {
  workspace: CloneWorkspace;
  /** SVC_REPO_INTERNAL_HOSTS: host names a push may reach even when they resolve to non-public addresses. */
  internalHosts?: readonly string[];
  /** Resolver for the connect-time guard; the system's by default (tests inject one). */
  resolve?: HostResolver;
  /** Bytes the checkout may download; default 64 MiB. */
  maxBytes?: number;
}

interface IsoGitError {
  code?: string;
  message?: string;
  data?: { statusCode?: number; reason?: string; result?: { refs?: Record<string, { ok: boolean; error?: string }> } };
}

const MESSAGES_CAP = 2048;
const LIMIT_FOR = 'git delivery checkouts';

/** A checkout may hold symlinks; writing through one could reach outside it, so a path with one in it is refused. */
async function refuseSymlinks(dir: string, rel: string): Promise<void> {
  let at = dir;
  for (const part of rel.split('/')) {
    at = path.join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (!info) return;
    if (info.isSymbolicLink()) throw new ValidationError(`Refused to write ${rel}: ${path.relative(dir, at)} is a symbolic link in the repository`);
  }
}

/**
 * GitPublisher over isomorphic-git and smart HTTP, no git binary. Every
 * request goes through the scoped HTTP client with the connect-time guard on
 * (a delivery repository is always per request), the token only to the
 * repository's origin. The checkout is depth 1 of one branch in a fresh
 * folder of the workspace, removed afterwards.
 */
export class IsomorphicGitPublisher implements GitPublisher {
  private readonly maxBytes: number;

  constructor(private readonly options: IsomorphicGitPublisherOptions) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  async publish(request: PublishRequest): Promise<PublishOutcome> {
    const remoteMessages: string[] = [];
    const dir = await this.options.workspace.allocate();
    try {
      return await runGitSession(
        {
          ...request,
          maxBytes: this.maxBytes,
          refuseNonPublicRedirects: true,
          internalHosts: this.options.internalHosts,
          resolve: this.options.resolve,
          limitFor: LIMIT_FOR,
        },
        (git, http) => this.run(git, http, dir, request, remoteMessages),
        (e, http, timedOut) => {
          if (e instanceof ValidationError) throw e;
          throw this.toPublishError(e as IsoGitError, request, http, timedOut, remoteMessages);
        },
      );
    } finally {
      await this.options.workspace.release(dir);
    }
  }

  private async run(git: Git, http: ScopedGitHttpClient, dir: string, request: PublishRequest, remoteMessages: string[]): Promise<PublishOutcome> {
    const { url, branch } = request;
    const refs = await git.listServerRefs({ http, url, symrefs: true, protocolVersion: 2 });
    const tip = (name: string) => refs.find((r) => r.ref === `refs/heads/${name}`)?.oid;
    const defaultBranch = refs.find((r) => r.ref === 'HEAD')?.target?.replace(/^refs\/heads\//, '');
    const baseBranch = request.baseBranch ?? defaultBranch;
    if (!baseBranch) {
      throw new ValidationError(`${request.displayUrl} has no default branch (an empty repository?): name the base branch in gitops.baseBranch`);
    }
    if (branch === baseBranch || branch === defaultBranch) {
      throw new ValidationError(
        `Refused to push to ${branch} of ${request.displayUrl}: it is the base branch, and svc never pushes to the base branch. Name another gitops.branch`,
      );
    }
    const existing = tip(branch);
    if (!tip(baseBranch)) {
      throw new ValidationError(`The base branch ${baseBranch} does not exist in ${request.displayUrl}`);
    }
    await git.clone({ fs, http, dir, url, ref: existing ? branch : baseBranch, singleBranch: true, depth: 1, noTags: true });
    if (http.sizeExceeded) throw new GitTransportError(sizeLimitMessage(this.maxBytes, LIMIT_FOR));
    if (!existing) await git.branch({ fs, dir, ref: branch, checkout: true });

    const files = await request.change(new FsRepoTree(dir));
    const written = await this.write(git, dir, files);
    const matrix = await git.statusMatrix({ fs, dir, filepaths: written });
    const changed = matrix.some(([, head, workdir, stage]) => head !== 1 || workdir !== 1 || stage !== 1);
    const outcome = { branch, baseBranch, branchExisted: !!existing, branchCreated: !existing, files: written };
    if (!changed) return { ...outcome, commit: existing ?? tip(baseBranch)!, changed: false, branchCreated: false };
    const commit = await git.commit({ fs, dir, message: request.message, author: request.author });
    // never force: a branch that moved on the remote is a refusal, not an overwrite
    await git.push({
      fs,
      http,
      dir,
      url,
      ref: branch,
      remoteRef: `refs/heads/${branch}`,
      force: false,
      onMessage: (line) => {
        if (remoteMessages.join('\n').length < MESSAGES_CAP) remoteMessages.push(line.trim());
      },
    });
    return { ...outcome, commit, changed: true };
  }

  /** Writes each file inside the checkout (a path that would leave it, or touch .git, is refused) and stages it. */
  private async write(git: Git, dir: string, files: RepoFile[]): Promise<string[]> {
    const written: string[] = [];
    for (const file of files) {
      const rel = normalizeSubPath(file.path);
      if (!rel || rel.split('/').includes('.git')) throw new ValidationError(`Refused to write ${file.path}: not a file path inside the repository`);
      await refuseSymlinks(dir, rel);
      const full = path.join(dir, rel);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, file.content);
      await git.add({ fs, dir, filepath: rel });
      written.push(rel);
    }
    return written;
  }

  private toPublishError(e: IsoGitError, request: PublishRequest, client: ScopedGitHttpClient, timedOut: boolean, remoteMessages: string[]): GitPublishError {
    const prefix = `Push to ${request.displayUrl} (branch ${request.branch}) failed`;
    const safe = (text: string) => scrubText(text, credentialSpellings(request.url, request.token));
    if (client.sizeExceeded) return new GitPublishError(`${prefix}: ${sizeLimitMessage(this.maxBytes, LIMIT_FOR)}`);
    if (timedOut) return new GitPublishError(`${prefix}: timed out after ${request.timeoutMs / 1000} s`);
    const remote = remoteMessages.filter(Boolean).join(' ').slice(0, MESSAGES_CAP);
    const said = remote ? ` (the remote said: ${remote})` : '';
    if (e.code === 'PushRejectedError' && e.data?.reason === 'not-fast-forward') {
      return new GitPublishError(
        safe(
          `${prefix}: the remote refused a non-fast-forward update: ${request.branch} moved on the remote while svc was committing, and svc never force-pushes. Run the delivery again to commit on top of the new tip, or name another branch`,
        ),
        undefined,
        'non-fast-forward',
      );
    }
    if (e.code === 'GitPushError') {
      const reasons = Object.entries(e.data?.result?.refs ?? {})
        .filter(([, r]) => !r.ok)
        .map(([ref, r]) => `${ref}: ${r.error ?? 'refused'}`);
      return new GitPublishError(safe(`${prefix}: the remote refused the update (${reasons.join('; ') || 'no reason given'})${said}`), undefined, 'rejected');
    }
    if (e.code === 'HttpError') {
      const status = e.data?.statusCode;
      return new GitPublishError(safe(`${prefix}: ${e.message ?? 'HTTP error'}${httpFailureDetail(client)}`), status, refusalOfStatus(status));
    }
    return new GitPublishError(safe(`${prefix}: ${e.message ?? String(e)}`));
  }
}
