/**
 * The same object, recording `name.method` in `log` for every method called
 * on it (awaited or not): what a test asserts to show a refused call reached
 * no dependency.
 */
export function counted<T extends object>(target: T, name: string, log: string[]): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value = Reflect.get(obj, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key === 'symbol') return value;
      return (...args: unknown[]) => {
        log.push(`${name}.${key}`);
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}
