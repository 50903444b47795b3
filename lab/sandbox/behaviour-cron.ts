/**
 * The `sameSchedule` behaviour condition (docs/evaluation.md, "Behaviour
 * conditions"): whether a CronJob schedule fires at the same times as another,
 * read as the CronJob controller's cron parser reads it: five fields (minute,
 * hour, day of month, month, day of week), each `*` or `?`, a list of values,
 * ranges and steps (`1-5`, `*\/15`, `8-18/2`), month and weekday names
 * (`JAN`, `FRI`), Sunday as 0 or 7, and the macros (`@daily`, `@weekly`...).
 * `0 16 * * 5`, `0 16 * * FRI` and `00 16 * * fri` are one schedule.
 */

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
/** Each field's range and names (a name's value is its index plus the offset). */
const FIELDS: { min: number; max: number; names?: string[]; offset?: number }[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, offset: 1 },
  { min: 0, max: 7, names: DAYS, offset: 0 },
];

/** One value of a field: a number in range or a name; undefined otherwise. */
function fieldValue(text: string, field: (typeof FIELDS)[number]): number | undefined {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  const n = named >= 0 ? named + (field.offset ?? 0) : /^\d{1,2}$/.test(text) ? Number(text) : undefined;
  return n !== undefined && n >= field.min && n <= field.max ? n : undefined;
}

/** The values one field matches (`*\/15` -> 0,15,30,45); undefined when it does not parse. */
function expand(text: string, field: (typeof FIELDS)[number]): Set<number> | undefined {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|\?|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d{1,2}))?$/.exec(part);
    if (!m) return undefined;
    const all = m[1] === '*' || m[1] === '?';
    const [from, to] = all ? [field.min, field.max] : m[1].split('-').map((x) => fieldValue(x, field));
    // a range ends where it says; a single value with a step runs to the end of the field, as `*` does
    const last = all || m[1].includes('-') ? to : m[2] !== undefined ? field.max : from;
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (from === undefined || last === undefined || last < from || step < 1) return undefined;
    for (let v = from; v <= last; v += step) out.add(v);
  }
  return out;
}

/** A schedule as the sets of values its five fields match (Sunday as 0); undefined when it does not parse. */
export function scheduleFields(schedule: string): string[] | undefined {
  const words = (MACROS[schedule.trim().toLowerCase()] ?? schedule).trim().split(/\s+/);
  if (words.length !== FIELDS.length) return undefined;
  const sets = words.map((w, i) => expand(w, FIELDS[i]));
  if (sets.some((s) => s === undefined)) return undefined;
  if (sets[4]!.delete(7)) sets[4]!.add(0);
  return sets.map((s) => [...s!].sort((a, b) => a - b).join(','));
}

/** Whether two schedules fire at the same times (both parse and match the same values field by field). */
export function sameSchedule(a: string, b: string): boolean {
  const x = scheduleFields(a);
  const y = scheduleFields(b);
  return !!x && !!y && x.every((f, i) => f === y[i]);
}
