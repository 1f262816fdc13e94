/** The package a failed `import()` could not find, when it is one of `packages`. */
function missingPackage(error: unknown, packages: readonly string[]): string | undefined {
  const seen = new Set<unknown>();
  for (
    let e = error;
    typeof e === 'object' && e !== null && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') continue;
    // Node: "Cannot find package 'openai' imported from …" (or "Cannot find module '…/node_modules/openai/…'")
    const text = typeof message === 'string' ? message : '';
    const found = packages.find(
      (p) =>
        text.includes(`'${p}'`) || text.includes(`"${p}"`) || text.includes(`/node_modules/${p}/`),
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Loads a demo backend whose SDKs are optional peers of recourse: when one of `packages` is not
 * installed, the error says which and how to install them, instead of Node's module-resolution
 * message. Other failures pass through unchanged.
 *
 * @example
 * const backend = await loadBackend('openai', ['openai'], () => import('./openai-backend.js'))
 */
export async function loadBackend<T>(
  name: string,
  packages: readonly string[],
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error, packages);
    if (missing === undefined) throw error;
    throw new Error(
      `--backend ${name} needs the package "${missing}", which is not installed (recourse leaves the SDKs to you): npm install ${packages.join(' ')}`,
      { cause: error },
    );
  }
}
