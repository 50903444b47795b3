/** Most bytes read from a discovery document or a key set: a real JWKS is a few KiB. */
export const MAX_KEY_DOCUMENT_BYTES = 256 * 1024;

/**
 * `fetch` for the identity provider's documents: gives up after `timeoutMs`
 * (also when the server sends headers and then stalls) and after
 * `MAX_KEY_DOCUMENT_BYTES` of body, so a hanging or flooding endpoint costs
 * one bounded wait, never memory. Redirects are not followed.
 */
export async function boundedFetch(url: string, timeoutMs: number, signal?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const res = await fetch(url, { signal: both, redirect: 'manual', headers: { accept: 'application/json' } });
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_KEY_DOCUMENT_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`${url} answered more than ${MAX_KEY_DOCUMENT_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_KEY_DOCUMENT_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`${url} answered more than ${MAX_KEY_DOCUMENT_BYTES} bytes`);
      }
      chunks.push(value);
    }
  }
  return new Response(Buffer.concat(chunks), { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });
}
