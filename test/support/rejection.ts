/** Awaits a promise that must reject and returns its error; a resolution fails the test. */
export async function rejection<E extends Error = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (e) {
    return e as E;
  }
  throw new Error('expected the promise to reject, it resolved');
}
