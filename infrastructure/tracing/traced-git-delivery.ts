import type { GitDeliveryPorts } from '../../application/gitops/push-with-request.js';
import type { GitPublisher, PublishOutcome, PublishRequest } from '../../domain/ports/git-publisher.js';
import type { OpenedPullRequest, PullRequestHost, PullRequestSpec } from '../../domain/ports/pull-request-host.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { NoopTracer } from './noop-tracer.js';
import { traceMethods } from './trace-methods.js';

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
};

/**
 * A `git push` client span per delivery (its smart-HTTP requests nest in it
 * as HTTP client spans) with OpenTelemetry's `vcs.*` attributes, and a client
 * span per pull request API call. The repository URL is the scrubbed one; no
 * token is ever an attribute.
 */
export function traceGitDelivery(ports: GitDeliveryPorts, tracer: Tracer): GitDeliveryPorts {
  if (tracer instanceof NoopTracer) return ports;
  const publisher: GitPublisher = traceMethods(ports.publisher, tracer, {
    publish: (args) => {
      const r = args[0] as PublishRequest;
      return {
        name: 'git push',
        attributes: {
          'vcs.repository.url.full': r.displayUrl,
          'vcs.ref.head.name': r.branch,
          'vcs.ref.head.type': 'branch',
          'vcs.ref.base.name': r.baseBranch,
          'server.address': hostOf(r.url),
        },
        fromResult: (result) => {
          const o = result as PublishOutcome;
          return {
            'vcs.ref.head.revision': o.commit,
            'vcs.ref.base.name': o.baseBranch,
            'svc.git.changed': o.changed,
            'svc.git.branch_created': o.branchCreated,
            'svc.git.files': o.files.length,
          };
        },
      };
    },
  });
  const pullRequests: PullRequestHost = traceMethods(ports.pullRequests, tracer, {
    open: (args) => {
      const s = args[0] as PullRequestSpec;
      const route = s.provider === 'github' ? 'POST /repos/{owner}/{repo}/pulls' : 'POST /projects/:id/merge_requests';
      return {
        name: route,
        attributes: {
          'vcs.provider.name': s.provider,
          'vcs.repository.name': s.project,
          'vcs.ref.head.name': s.head,
          'vcs.ref.base.name': s.base,
          'server.address': hostOf(s.apiUrl),
          'url.template': route.slice(5),
        },
        fromResult: (result) => {
          const pr = result as OpenedPullRequest;
          return { 'vcs.change.id': String(pr.number), 'svc.git.pull_request.url': pr.url, 'svc.git.pull_request.existing': pr.existing };
        },
      };
    },
  });
  return { ...ports, publisher, pullRequests };
}
