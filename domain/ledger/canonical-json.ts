/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined`
 * members left out (as JSON.stringify does), numbers as JSON.stringify writes
 * them. Two equal values give the same bytes whatever their key order, so a
 * hash over it survives a round trip through any JSON store.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, functions, symbols: JSON has no spelling for them
    if (text === undefined) throw new TypeError('canonicalJson: value is not JSON');
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}
