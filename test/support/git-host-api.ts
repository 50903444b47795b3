import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedApiRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

interface OpenRequest {
  number: number;
  project: string;
  head: string;
  base: string;
  title: string;
  body: string;
}

/**
 * Stand-ins for the GitHub REST API (`POST /repos/{owner}/{repo}/pulls`,
 * `GET .../pulls?head=owner:branch&base=`) and the GitLab API v4 (`POST
 * /projects/:id/merge_requests`, `GET ...?source_branch=&target_branch=`),
 * with their documented status codes and bodies: 201 on creation, GitHub's
 * 422 "A pull request already exists", GitLab's 409, 401 without the token,
 * 404 for an unknown project. They record every request. On 127.0.0.1:0,
 * under the prefix GitHub Enterprise (`/api/v3`) or GitLab (`/api/v4`) uses.
 */
export class GitHostApi {
  readonly requests: RecordedApiRequest[] = [];
  readonly open: OpenRequest[] = [];
  /** Projects the API knows (`owner/name`, or a GitLab full path). */
  readonly projects = new Set<string>();
  /** When set, every call answers this status and body. */
  failWith?: { status: number; body: unknown };
  private server?: http.Server;
  port = 0;

  constructor(
    readonly flavour: 'github' | 'gitlab',
    readonly token: string,
  ) {}

  /** Base URL as SVC_GITHUB_API_URL / SVC_GITLAB_API_URL would name it, by host name `localhost`. */
  get apiUrl(): string {
    return `http://localhost:${this.port}/api/${this.flavour === 'github' ? 'v3' : 'v4'}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://x');
    let body: Record<string, unknown> | undefined;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    this.requests.push({ method: req.method!, path: `${url.pathname}${url.search}`, headers: req.headers, body });
    const send = (status: number, json: unknown): void => void res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
    if (this.failWith) return send(this.failWith.status, this.failWith.body);
    const authorized = this.flavour === 'github' ? req.headers.authorization === `Bearer ${this.token}` : req.headers['private-token'] === this.token;
    if (!authorized) return send(401, this.flavour === 'github' ? { message: 'Bad credentials', status: '401' } : { message: '401 Unauthorized' });
    return this.flavour === 'github' ? this.github(req.method!, url, body, send) : this.gitlab(req.method!, url, body, send);
  }

  private github(method: string, url: URL, body: Record<string, unknown> | undefined, send: (s: number, j: unknown) => void): void {
    const m = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/pulls$/.exec(url.pathname);
    if (!m || !this.projects.has(m[1])) return send(404, { message: 'Not Found', status: '404' });
    const project = m[1];
    const view = (p: OpenRequest) => ({ number: p.number, html_url: `https://github.example/${project}/pull/${p.number}`, title: p.title, state: 'open' });
    if (method === 'GET') {
      const head = url.searchParams.get('head') ?? '';
      const base = url.searchParams.get('base');
      return send(200, this.open.filter((p) => p.project === project && `${project.split('/')[0]}:${p.head}` === head && (!base || p.base === base)).map(view));
    }
    const { head, base, title } = (body ?? {}) as Record<string, string>;
    if (!head || !base || !title) return send(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'missing_field' }] });
    if (this.open.some((p) => p.project === project && p.head === head && p.base === base)) {
      return send(422, {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${project.split('/')[0]}:${head}.` }],
      });
    }
    const created = { number: this.open.length + 1, project, head, base, title, body: String(body!.body ?? '') };
    this.open.push(created);
    return send(201, view(created));
  }

  private gitlab(method: string, url: URL, body: Record<string, unknown> | undefined, send: (s: number, j: unknown) => void): void {
    const m = /^\/api\/v4\/projects\/([^/]+)\/merge_requests$/.exec(url.pathname);
    const project = m ? decodeURIComponent(m[1]) : '';
    if (!m || !this.projects.has(project)) return send(404, { message: '404 Project Not Found' });
    const view = (p: OpenRequest) => ({
      iid: p.number,
      id: 1000 + p.number,
      web_url: `https://gitlab.example/${project}/-/merge_requests/${p.number}`,
      title: p.title,
    });
    if (method === 'GET') {
      const source = url.searchParams.get('source_branch');
      const target = url.searchParams.get('target_branch');
      return send(200, this.open.filter((p) => p.project === project && p.head === source && (!target || p.base === target)).map(view));
    }
    const { source_branch: head, target_branch: base, title } = (body ?? {}) as Record<string, string>;
    if (!head || !base || !title) return send(400, { message: 'title is missing' });
    const same = this.open.find((p) => p.project === project && p.head === head && p.base === base);
    if (same) return send(409, { message: [`Another open merge request already exists for this source branch: !${same.number}`] });
    const created = { number: this.open.length + 1, project, head, base, title, body: String(body!.description ?? '') };
    this.open.push(created);
    return send(201, view(created));
  }
}
