import { fileURLToPath } from 'node:url';

/**
 * The absolute path of a page of the docs that ship in the package (`docs/` beside `dist/`), for
 * help texts: it resolves wherever the package is installed, with no network. From the sources
 * (`src/cli`) it is the repository's `docs/`.
 *
 * @example
 * packageDoc('chaos-server.md') // '/app/node_modules/agent-recourse/docs/chaos-server.md'
 */
export function packageDoc(page: string): string {
  return fileURLToPath(new URL(`../../docs/${page}`, import.meta.url));
}
