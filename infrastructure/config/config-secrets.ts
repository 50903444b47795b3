/** Config keys whose string values are credentials. */
const SECRET_KEY = /(token|secret|password|passwd|apikey|api_key|credential)/i;

/**
 * Every credential value in the validated config (auth token, API keys, git
 * token...), found by key name so a section added later is covered without
 * an edit here. Used to scrub these exact values from spans and messages.
 */
export function configSecrets(config: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, key: string, depth: number) => {
    if (depth > 8 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (SECRET_KEY.test(key)) found.add(value);
    } else if (Array.isArray(value)) {
      value.forEach((v) => visit(v, key, depth + 1));
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
    }
  };
  visit(config, '', 0);
  return [...found];
}
