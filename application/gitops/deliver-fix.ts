import { actionTarget, toOperation, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { ValidationError } from '../../domain/errors.js';
import type { GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import { validateGitopsTarget } from '../../domain/gitops/gitops-target.js';
import type { RepoFile } from '../../domain/gitops/manifest-files.js';
import { pullRequestTarget } from '../../domain/gitops/pull-request-target.js';
import { selectPushCredential } from '../../domain/gitops/push-credential.js';
import { isAllowlistedHost } from '../../domain/prompts/clone-credential.js';
import { isValidBranch } from '../../domain/prompts/repo-override.js';
import type { RepoTree } from '../../domain/ports/git-publisher.js';
import type { ManifestEditor } from '../../domain/ports/manifest-editor.js';
import type { ChangeRecord } from '../../domain/ledger/change-entry.js';
import type { WriteContext } from '../ledger/change-recorder.js';
import { pushWithRequest, type GitDeliveryPorts, type GitDeliverySettings } from './push-with-request.js';

export interface FixDelivery {
  /** `rem_...` or `opr_...`: the branch is `svc/<sessionId>`. */
  sessionId: string;
  /** The issue or intent, for the commit and the pull request. */
  summary: string;
  actions: readonly ClusterAction[];
  marks: readonly (GitopsMark | null | undefined)[];
  gitToken?: string;
  requestedBy: string;
  now: Date;
  /** Who and what the change ledger records this delivery for (the same context a live write of the run has). */
  recording?: WriteContext;
  /** The dry run of the actions on the live objects made just before. */
  dryRun?: ChangeRecord['dryRun'];
}

export interface DeliveredFix {
  repository: string;
  branch: string;
  baseBranch: string;
  commit: string;
  changed: boolean;
  files: string[];
  pullRequest?: { url: string; number: number; existing: boolean };
  /** Why no pull request was opened, when none was. */
  note?: string;
  ledgerId?: string;
  ledgerError?: string;
}

const named = (t: ResourceRef) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;
const YAML_FILE = /\.ya?ml$/i;

/**
 * A proposed fix delivered as a commit to the source repository of the
 * GitOps controller that manages its objects, instead of a live change the
 * controller would revert: each action's patch is applied to the object's
 * document in the repository's YAML (comments and layout kept), pushed to
 * `svc/<sessionId>`, with a pull request when the host's API is known. Only
 * changes that are patches (patch, scale, rollout restart) of objects found
 * in plain YAML under the source path can be delivered so.
 */
export class DeliverFix {
  constructor(
    private readonly ports: GitDeliveryPorts,
    private readonly editor: ManifestEditor,
    private readonly settings: GitDeliverySettings,
  ) {}

  async execute(fix: FixDelivery): Promise<DeliveredFix> {
    const source = this.commonSource(fix);
    const location = this.location(fix.sessionId, source.repoURL);
    const { token } = selectPushCredential({
      location,
      headerToken: fix.gitToken,
      serverToken: this.settings.serverToken,
      allowedHosts: this.settings.allowedHosts,
    });
    let pr: ReturnType<typeof pullRequestTarget> | undefined;
    let note: string | undefined;
    try {
      pr = pullRequestTarget(location, this.settings.pullRequests);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      note = e.message;
    }
    const baseBranch = source.revision && isValidBranch(source.revision) ? source.revision : undefined;
    const { outcome, pullRequest, ledgerId, ledgerError } = await pushWithRequest(this.ports, {
      location,
      baseBranch,
      token,
      message: `svc: ${fix.summary.replace(/\s+/g, ' ').slice(0, 60)}\n\n${fix.actions.map((a) => `- ${a.description}`).join('\n')}\nSession: ${fix.sessionId}\n`,
      author: this.settings.author,
      timeoutMs: this.settings.timeoutMs,
      change: (tree) => this.edit(tree, fix, source.path),
      pullRequest: pr,
      requestText: (files) => ({
        title: `svc: ${fix.summary.replace(/\s+/g, ' ').slice(0, 200)}`,
        body: [
          `**Issue:** \`${fix.summary.replace(/`/g, "'").slice(0, 500)}\``,
          `**Session:** \`${fix.sessionId}\`, requested by \`${fix.requestedBy}\` through svc`,
          '',
          '**Changes:**',
          ...fix.actions.map((a) => `- ${a.description.replace(/\n/g, ' ')} (${named(actionTarget(a))})`),
          '',
          '**Files:**',
          ...files.map((f) => `- \`${f}\``),
          '',
          'The live objects were not changed: the GitOps controller applies this once merged.',
        ].join('\n'),
      }),
      ...(fix.recording ? { recording: { context: fix.recording, objects: fix.actions.map(actionTarget), dryRun: fix.dryRun } } : {}),
    });
    return {
      repository: location.source,
      branch: outcome.branch,
      baseBranch: outcome.baseBranch,
      commit: outcome.commit,
      changed: outcome.changed,
      files: outcome.files,
      ...(pullRequest ? { pullRequest } : {}),
      ...(note && !pullRequest ? { note: `No pull request opened: ${note}` } : {}),
      ...(ledgerId ? { ledgerId } : {}),
      ...(ledgerError ? { ledgerError } : {}),
    };
  }

  /** Why a change of an object with this mark cannot be delivered through git (said at proposal time), or undefined when it can. */
  refusalFor(mark: GitopsMark): string | undefined {
    if (!mark.source) return `svc cannot tell the git source of ${mark.owner} (a Helm chart or a non-git source)`;
    try {
      this.location('proposal', mark.source.repoURL);
      return undefined;
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return e.message.replace(/^Cannot deliver through git: /, '');
    }
  }

  /** Every action must be a GitOps-managed object with a known git source, all in one repository. */
  private commonSource(fix: FixDelivery) {
    const sources = fix.actions.map((a, i) => {
      const mark = fix.marks[i];
      const what = `action ${i + 1} (${named(actionTarget(a))})`;
      if (!mark)
        throw new ValidationError(
          `Cannot deliver through git: ${what} is not managed by a GitOps controller; send delivery "live" to change it in the cluster`,
        );
      if (!mark.source)
        throw new ValidationError(
          `Cannot deliver through git: ${what} is managed by ${mark.owner}, whose git source svc cannot tell (a Helm chart or a non-git source)`,
        );
      return mark.source;
    });
    const repos = new Set(sources.map((s) => s.repoURL));
    if (repos.size !== 1)
      throw new ValidationError(
        `Cannot deliver through git: the actions' objects come from ${repos.size} repositories (${[...repos].join(', ')}); one delivery pushes to one`,
      );
    return sources[0];
  }

  /** The source repository by the per-request rules, and on an allowed host: the URL comes from the cluster, not from the caller. */
  private location(sessionId: string, repoURL: string) {
    let location;
    try {
      location = validateGitopsTarget({ repo: repoURL }, { branch: `svc/${sessionId}`, path: '' }).location;
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      throw new ValidationError(`Cannot deliver through git: the source repository ${repoURL} is not one svc pushes to (${e.message})`);
    }
    if (!isAllowlistedHost(location.host, this.settings.allowedHosts)) {
      throw new ValidationError(
        `Cannot deliver through git: the source repository's host ${location.host} is not in the allowed repository hosts (SVC_ALLOWED_REPO_HOSTS, chart value gitops.allowedRepoHosts)`,
      );
    }
    return location;
  }

  /** Each action's merge patch applied to the document that holds its object, edits to one file composing. */
  private async edit(tree: RepoTree, fix: FixDelivery, folder: string): Promise<RepoFile[]> {
    const edited = new Map<string, string>();
    const paths = (await tree.list(folder)).filter((p) => YAML_FILE.test(p));
    for (const action of fix.actions) {
      const op = toOperation(action, fix.now);
      const target = actionTarget(action);
      if (op.method !== 'patch') {
        throw new ValidationError(
          `Cannot deliver through git: a ${action.type} of ${named(target)} is not a change svc writes into YAML; only patch, scale and rollout restart are`,
        );
      }
      let done = false;
      for (const path of paths) {
        const text = edited.get(path) ?? (await tree.read(path));
        const next = text === undefined ? undefined : this.editor.patchObject(text, target, op.patch, op.patchType);
        if (next === undefined) continue;
        edited.set(path, next);
        done = true;
        break;
      }
      if (!done) {
        throw new ValidationError(
          `Cannot deliver through git: ${named(target)} was not found in the YAML files under ${folder || 'the root'} of the source repository (svc edits plain manifests, not kustomize patches or Helm values)`,
        );
      }
    }
    return [...edited].map(([path, content]) => ({ path, content }));
  }
}
