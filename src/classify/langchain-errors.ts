// LangChain's wrappers around the errors they carry, recognised by shape (no import of LangChain):
// its agents wrap whatever leaves a middleware in a `MiddlewareError` (the error itself as `cause`),
// and its chat models turn a provider's context-window 400 into a `ContextOverflowError`.

type Bag = Record<string | symbol, unknown>;

/**
 * @internal The error a LangChain wrapper carries, to be classified in its place: a
 * `MiddlewareError`'s cause, a `ContextOverflowError`'s cause (the provider's 400); `undefined`
 * for any other error.
 */
export function langchainWrapped(e: Bag): unknown {
  if (e['~brand'] === 'MiddlewareError' && e.cause !== undefined) return e.cause;
  if (e.name === 'ContextOverflowError' && e.cause !== undefined) return e.cause;
  return undefined;
}

/** @internal True for LangChain's `ContextOverflowError` that carries no provider error. */
export function isLangchainContextOverflow(e: Bag): boolean {
  return e.name === 'ContextOverflowError';
}
