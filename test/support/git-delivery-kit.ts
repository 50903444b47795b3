import { DeliverFix } from '../../application/gitops/deliver-fix.js';
import type { GitDeliverySettings } from '../../application/gitops/push-with-request.js';
import type { GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import type { GitPublisher, PublishOutcome, PublishRequest } from '../../domain/ports/git-publisher.js';
import type { OpenedPullRequest, PullRequestHost, PullRequestSpec } from '../../domain/ports/pull-request-host.js';
import { YamlManifestEditor } from '../../infrastructure/gitops/yaml-manifest-editor.js';

/** A git delivery in memory (DeliverFix over a repository of files and a recording pull-request host), for the tests of what delivers through git. */

/** The server's git token of the kit: a canary no answer or record may carry. */
export const SERVER_GIT_TOKEN = 'server-token-canary-5d1e';
/** The shop's web Deployment as a person keeps it in the repository: comments and layout a delivery must keep. */
export const WEB_YAML = `# the shop's web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 1 # raised by hand in May
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/team/web:1.4.2
`;

/** A repository in memory: the delivery's edit runs on its files, and the request is kept for the assertions. */
export class MemoryPublisher implements GitPublisher {
  requests: PublishRequest[] = [];
  written: { path: string; content: string }[] = [];
  constructor(readonly files: Record<string, string>) {}
  async publish(request: PublishRequest): Promise<PublishOutcome> {
    this.requests.push(request);
    this.written = await request.change({
      list: async (folder) => Object.keys(this.files).filter((p) => folder === '' || p.startsWith(`${folder}/`)),
      read: async (path) => this.files[path],
    });
    return {
      commit: 'f00d'.padEnd(40, '0'),
      branch: request.branch,
      baseBranch: request.baseBranch ?? 'main',
      branchExisted: false,
      branchCreated: true,
      changed: true,
      files: this.written.map((f) => f.path),
    };
  }
}

export class RecordingPullRequests implements PullRequestHost {
  specs: PullRequestSpec[] = [];
  async open(spec: PullRequestSpec): Promise<OpenedPullRequest> {
    this.specs.push(spec);
    return { url: 'https://github.com/team/shop/pull/12', number: 12, existing: false };
  }
}

/** An Argo CD mark with a git source (github.com/team/shop, apps, main unless told). */
export const argoMark = (repoURL = 'https://github.com/team/shop.git', path = 'apps', revision: string | undefined = 'main'): GitopsMark => ({
  controller: 'argocd',
  owner: 'Application argocd/shop',
  source: { repoURL, path, ...(revision ? { revision } : {}) },
});

/** A DeliverFix over a repository in memory and a host that opens every pull request, its server token SERVER_GIT_TOKEN. */
export function deliveryKit(
  files: Record<string, string> = { 'apps/web.yaml': WEB_YAML, 'apps/README.md': 'not yaml' },
  allowedHosts = ['github.com', 'git.corp.example'],
) {
  const publisher = new MemoryPublisher(files);
  const pullRequests = new RecordingPullRequests();
  const deliver = new DeliverFix({ publisher, pullRequests }, new YamlManifestEditor(), deliverySettings(allowedHosts));
  return { publisher, pullRequests, deliver };
}

/** The kit's delivery settings: its server token SERVER_GIT_TOKEN, pushes allowed to `allowedHosts`. */
export function deliverySettings(allowedHosts: readonly string[] = ['github.com', 'git.corp.example']): GitDeliverySettings {
  return { serverToken: SERVER_GIT_TOKEN, allowedHosts, author: { name: 'svc', email: 'svc@localhost' }, pullRequests: {}, timeoutMs: 5000 };
}
