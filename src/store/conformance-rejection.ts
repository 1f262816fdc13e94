/** @internal What `promise` rejected with, or undefined when it resolved (for the conformance suites). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}
