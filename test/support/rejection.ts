/** Awaits a promise that must reject and returns its error; a resolution fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the promise to reject, it resolved');
}
