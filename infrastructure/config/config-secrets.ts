/** Config keys whose string values are credentials. */
const SECRET_KEY = /(token|secret|password|passwd|apikey|api_key|accesskey|credential)/i;

/**
 * Every credential value in the validated config (auth token, API keys, git
 * token...), found by key name so a section added later is covered without
 * an edit here. Every string under a key that names a secret is one too
 * (`secretHeaders: { 'x-gateway-key': ... }`). Used to scrub these exact
 * values from spans and messages.
 */
export function configSecrets(config: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, key: string, depth: number, inSecret: boolean) => {
    if (depth > 8 || value === null || value === undefined) return;
    const secret = inSecret || SECRET_KEY.test(key);
    if (typeof value === 'string') {
      if (secret) found.add(value);
    } else if (Array.isArray(value)) {
      value.forEach((v) => visit(v, key, depth + 1, secret));
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1, secret);
    }
  };
  visit(config, '', 0, false);
  return [...found];
}
