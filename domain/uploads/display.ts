/** Longest caller-supplied text echoed in one message, in characters. */
const MAX_ECHO = 200;

/**
 * A caller-supplied value as it appears inside an error message: as sent,
 * cut short when long so a hostile value cannot blow up responses and logs.
 */
export function echo(value: string): string {
  return value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}...(${value.length} characters)` : value;
}
