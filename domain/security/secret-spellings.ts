/**
 * Every spelling of a known secret (svc's tokens, keys, a caller's git token)
 * that a server, a library or a program could echo back: the value itself,
 * percent-encoded (upper and lower hex), and base64 and base64url, also when
 * the secret sits inside a longer encoded value (`user:token` in a Basic
 * header, a JSON blob), wherever it starts.
 *
 * The embedded forms work because base64 maps every 3 bytes to 4 characters:
 * a secret that starts 0, 1 or 2 bytes into a 3-byte group always encodes to
 * the same run of characters, apart from the few at each end that mix with
 * its neighbours. Those runs ("cores") are found as they are; the whole
 * encoded value (with and without `=` padding) is tried first so a value
 * encoded alone is scrubbed to the last character.
 */

/** Shorter secrets get no encoded spellings: their cores would match ordinary text. */
const MIN_ENCODED = 8;

const toBase64Url = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** The characters of the secret encoded `offset` bytes into a base64 group that depend on the secret's bytes alone. */
function core(bytes: Buffer, offset: number): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
  const encoded = padded.toString('base64');
  const skip = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * padded.length) / 6);
  return encoded.slice(skip, end);
}

/** The spellings of one secret, longest first. Not cached: a cache would keep callers' tokens past their request. */
export function secretSpellings(secret: string): readonly string[] {
  const out = new Set<string>([secret]);
  if (secret.length >= MIN_ENCODED) {
    const pct = encodeURIComponent(secret);
    out.add(pct);
    out.add(pct.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
    const bytes = Buffer.from(secret, 'utf8');
    const whole = bytes.toString('base64');
    out.add(whole);
    out.add(whole.replace(/=+$/, ''));
    out.add(toBase64Url(whole));
    for (const offset of [0, 1, 2]) {
      const c = core(bytes, offset);
      if (c.length < MIN_ENCODED) continue;
      out.add(c);
      out.add(toBase64Url(c));
    }
  }
  // longest first: a whole encoded value goes before the core inside it
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * The text with every spelling of every secret (at least 4 characters; shorter
 * values would redact ordinary words) replaced by `redacted`.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[], redacted: string): string {
  return secretRedactor(secrets, redacted)(text);
}

/**
 * redactSecrets for many strings with the same secrets (every string of an
 * answer, a session, a ledger record): the spellings are worked out once,
 * not once per string.
 */
export function secretRedactor(secrets: readonly (string | undefined)[], redacted: string): (text: string) => string {
  const spellings = new Set<string>();
  for (const secret of secrets) if (secret && secret.length >= 4) for (const s of secretSpellings(secret)) spellings.add(s);
  // longest first across all secrets: `user:token` encoded whole goes before the token's own run inside it
  const ordered = [...spellings].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const spelling of ordered) if (out.includes(spelling)) out = out.split(spelling).join(redacted);
    return out;
  };
}
