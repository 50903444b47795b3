/** One shell word, single-quoted unless it is plainly safe: for the kubectl and `svc` command lines svc prints for people to run. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
