import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { LoopbackServer } from './scripted-model.js';
import type { KnownKey } from './sigv4-verifier.js';

const TOKEN_PATH = '/latest/api/token';
const ROLES_PATH = '/latest/meta-data/iam/security-credentials/';
const TTL_HEADER = 'x-aws-ec2-metadata-token-ttl-seconds';
const TOKEN_HEADER = 'x-aws-ec2-metadata-token';

/**
 * The EC2 instance metadata service with IMDSv2 required (`HttpTokens:
 * required`), as far as the credential chain uses it: `PUT /latest/api/token`
 * with a TTL of 1-21600 s in `x-aws-ec2-metadata-token-ttl-seconds` answers a
 * session token (400 without a valid TTL, 403 when the PUT carries
 * `X-Forwarded-For`, as the real service refuses proxied token requests);
 * every GET needs that token in `x-aws-ec2-metadata-token` (401 without it,
 * or with an unknown or expired one). `GET .../iam/security-credentials/`
 * names the instance role, `GET .../security-credentials/<role>` answers
 * temporary keys (the JSON document with Code, AccessKeyId, SecretAccessKey,
 * Token, Expiration), issued into the shared `keys` map the Bedrock stand-in
 * verifies signatures against.
 */
export class AwsImdsServer {
  readonly role = 'svc-instance-role';
  /** Every request as it came: method, path and whether it carried a valid session token. */
  readonly seen: { method: string; path: string; ttl?: string; tokenValid: boolean }[] = [];
  /** Every session token (the `Token` of the credentials) it issued. */
  readonly issued: string[] = [];
  /** Every secret access key it issued. */
  readonly secrets: string[] = [];
  /** Lifetime of the credentials it issues. */
  lifetimeMs = 3600_000;
  private readonly sessions = new Map<string, number>();
  private readonly http = new LoopbackServer((req, _body, res) => this.handle(req, res));
  url = '';

  constructor(private readonly keys: Map<string, KnownKey>) {}

  static async start(keys: Map<string, KnownKey>): Promise<AwsImdsServer> {
    const s = new AwsImdsServer(keys);
    await s.http.listen();
    s.url = `http://127.0.0.1:${s.http.port}`;
    return s;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    const text = (status: number, body: string, type = 'text/plain') => {
      res.writeHead(status, { 'Content-Type': type, Server: 'EC2ws' });
      res.end(body);
    };
    if (path === TOKEN_PATH) {
      const ttl = req.headers[TTL_HEADER];
      this.seen.push({ method: req.method ?? '', path, ttl: typeof ttl === 'string' ? ttl : undefined, tokenValid: false });
      if (req.method !== 'PUT') return text(405, 'Method Not Allowed');
      if (req.headers['x-forwarded-for'] !== undefined) return text(403, 'Forbidden');
      const seconds = Number(ttl);
      if (typeof ttl !== 'string' || !Number.isInteger(seconds) || seconds < 1 || seconds > 21600) return text(400, 'Bad Request');
      const token = randomBytes(32).toString('base64');
      this.sessions.set(token, Date.now() + seconds * 1000);
      return text(200, token);
    }
    const given = req.headers[TOKEN_HEADER];
    const until = typeof given === 'string' ? this.sessions.get(given) : undefined;
    const tokenValid = until !== undefined && until > Date.now();
    this.seen.push({ method: req.method ?? '', path, tokenValid });
    if (req.method !== 'GET') return text(405, 'Method Not Allowed');
    if (!tokenValid) return text(401, 'Unauthorized');
    if (path === ROLES_PATH) return text(200, this.role);
    if (path !== `${ROLES_PATH}${this.role}`) return text(404, 'Not Found');
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(30).toString('base64');
    const sessionToken = `IQoJb3JpZ2luX2VjEImds${randomBytes(48).toString('base64')}`;
    const expiresAt = Date.now() + this.lifetimeMs;
    this.keys.set(accessKeyId, { secretAccessKey, sessionToken, expiresAt });
    this.issued.push(sessionToken);
    this.secrets.push(secretAccessKey);
    const body = {
      Code: 'Success',
      LastUpdated: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      Type: 'AWS-HMAC',
      AccessKeyId: accessKeyId,
      SecretAccessKey: secretAccessKey,
      Token: sessionToken,
      Expiration: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    return text(200, JSON.stringify(body, null, 2), 'text/plain');
  }
}
