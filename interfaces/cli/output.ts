export type OutputFormat = 'text' | 'json';

export function writeOut(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function writeErr(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** JSON for scripts: stable, indented, one document on stdout. */
export function printJson(value: unknown): void {
  writeOut(JSON.stringify(value, null, 2));
}

/** Readable structured data: YAML keeps nesting visible without braces and quotes. */
export function printPretty(value: unknown): void {
  if (value === undefined) return writeOut('');
  // loaded here: the YAML library costs every command that prints no YAML (--help, lists) start-up time
  const { stringify } = require('yaml') as typeof import('yaml');
  writeOut(stringify(value, { lineWidth: 0 }).trimEnd());
}

/** Left-aligned columns; the last column is not padded. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
