import { PullRequestError, type OpenedPullRequest, type PullRequestHost, type PullRequestSpec } from '../../domain/ports/pull-request-host.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';

const BODY_CAP = 64 * 1024;
const REASON_CAP = 1000;

interface Answer {
  status: number;
  json: unknown;
  text: string;
}

/** The documented calls of each host: create, and find the open one when the host says one exists. */
const CALLS = {
  github: {
    create: (s: PullRequestSpec) => ({
      path: `/repos/${s.project}/pulls`,
      body: { title: s.title, body: s.body, head: s.head, base: s.base },
    }),
    exists: (a: Answer) => a.status === 422 && /already exists/i.test(a.text),
    find: (s: PullRequestSpec) =>
      `/repos/${s.project}/pulls?state=open&head=${encodeURIComponent(`${s.project.split('/')[0]}:${s.head}`)}&base=${encodeURIComponent(s.base)}`,
    read: (o: Record<string, unknown>) => ({ url: String(o.html_url), number: Number(o.number) }),
    headers: (token: string) => ({ Authorization: `Bearer ${token}`, Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' }),
  },
  gitlab: {
    create: (s: PullRequestSpec) => ({
      path: `/projects/${encodeURIComponent(s.project)}/merge_requests`,
      body: { title: s.title, description: s.body, source_branch: s.head, target_branch: s.base, remove_source_branch: true },
    }),
    exists: (a: Answer) => a.status === 409,
    find: (s: PullRequestSpec) =>
      `/projects/${encodeURIComponent(s.project)}/merge_requests?state=opened&source_branch=${encodeURIComponent(s.head)}&target_branch=${encodeURIComponent(s.base)}`,
    read: (o: Record<string, unknown>) => ({ url: String(o.web_url), number: Number(o.iid) }),
    headers: (token: string) => ({ 'PRIVATE-TOKEN': token }),
  },
} as const;

/**
 * Pull requests through the hosts' documented REST APIs with plain fetch
 * (docs/design/deployment.md says why not @octokit/rest or @gitbeaker/rest): GitHub
 * `POST /repos/{owner}/{repo}/pulls`, GitLab `POST /projects/:id/merge_requests`.
 * An already open request between the same branches is looked up and answered.
 */
export class HttpPullRequestHost implements PullRequestHost {
  constructor(private readonly timeoutMs = 30_000) {}

  async open(spec: PullRequestSpec): Promise<OpenedPullRequest> {
    const calls = CALLS[spec.provider];
    const { path, body } = calls.create(spec);
    const created = await this.call(spec, 'POST', path, body);
    if (created.status === 201 || created.status === 200) return { ...this.read(spec, created.json), existing: false };
    if (calls.exists(created)) {
      const found = await this.call(spec, 'GET', calls.find(spec));
      const first = Array.isArray(found.json) ? (found.json[0] as Record<string, unknown> | undefined) : undefined;
      if (found.status === 200 && first) return { ...this.read(spec, first), existing: true };
    }
    throw this.failure(spec, `answered ${created.status}: ${this.reason(created)}`);
  }

  private read(spec: PullRequestSpec, json: unknown): { url: string; number: number } {
    const out = json && typeof json === 'object' ? CALLS[spec.provider].read(json as Record<string, unknown>) : undefined;
    if (!out || !/^https?:\/\//.test(out.url) || !Number.isInteger(out.number)) throw this.failure(spec, 'answered without the request URL and number');
    return out;
  }

  private async call(spec: PullRequestSpec, method: string, path: string, body?: unknown): Promise<Answer> {
    let res: Response;
    try {
      res = await fetch(`${spec.apiUrl}${path}`, {
        method,
        headers: { ...CALLS[spec.provider].headers(spec.token), 'User-Agent': 'svc', ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        redirect: 'error', // a redirect would carry the token to wherever it points
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const why = (e as Error).name === 'TimeoutError' ? `timed out after ${this.timeoutMs / 1000} s` : `could not be reached (${(e as Error).message})`;
      throw this.failure(spec, why);
    }
    const text = await this.bounded(res);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  private async bounded(res: Response): Promise<string> {
    if (!res.body) return '';
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > BODY_CAP) {
        await reader.cancel();
        break;
      }
    }
    return Buffer.concat(chunks).toString('utf8').slice(0, BODY_CAP);
  }

  /** GitHub's `message` and `errors[].message`, GitLab's `message` (a string, a list or an object of lists). */
  private reason(a: Answer): string {
    const o = a.json as { message?: unknown; errors?: { message?: string }[]; error?: unknown } | undefined;
    const parts: string[] = [];
    if (o && typeof o === 'object') {
      if (o.message !== undefined) parts.push(typeof o.message === 'string' ? o.message : JSON.stringify(o.message));
      if (Array.isArray(o.errors)) parts.push(...o.errors.map((x) => x?.message ?? JSON.stringify(x)));
      if (typeof o.error === 'string') parts.push(o.error);
    }
    const text = parts.length ? parts.join('; ') : a.text.trim() || 'no reason given';
    return text.length > REASON_CAP ? `${text.slice(0, REASON_CAP)}…` : text;
  }

  private failure(spec: PullRequestSpec, why: string): PullRequestError {
    const what = spec.provider === 'github' ? 'pull request' : 'merge request';
    const message = `Could not open a ${what} for ${spec.project} (${spec.head} into ${spec.base}) on ${new URL(spec.apiUrl).host}: the API ${why}`;
    return new PullRequestError(scrubText(message, [spec.token]));
  }
}
