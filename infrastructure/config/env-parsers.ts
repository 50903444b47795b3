/** Thrown when a configuration value is invalid; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** The trimmed value, or undefined when unset or blank. */
export function str(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = str(env, name);
  if (v === undefined) return fallback;
  const lower = v.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(name, `must be true or false, got "${v}"`);
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new ConfigError(name, `must be a whole number, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) throw new ConfigError(name, `must be a number, got "${v}"`);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${v}`);
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(env, name);
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}

/** A URL with an http or https scheme. */
export function httpUrl(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, 'must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
  return v;
}
