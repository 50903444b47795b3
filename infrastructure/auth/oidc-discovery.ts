import { isLoopbackHost } from '../config/server-config.js';
import { boundedFetch } from './bounded-fetch.js';

/**
 * The `jwks_uri` of the issuer's discovery document
 * (`<issuer>/.well-known/openid-configuration`), after checking that the
 * document names the same issuer and that the key URL is https (http only on
 * a loopback address, like the configured URLs).
 */
export async function discoverJwksUrl(issuer: string, timeoutMs: number): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await boundedFetch(url, timeoutMs);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer) throw new Error(`${url} names another issuer`);
  if (typeof doc.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`);
  const jwks = new URL(doc.jwks_uri);
  if (jwks.protocol !== 'https:' && !(jwks.protocol === 'http:' && isLoopbackHost(jwks.hostname))) throw new Error(`${url} names a jwks_uri that is not https`);
  return jwks.href;
}
