// Where the workers load recourse from: the built package (dist/index.js), or the file named by
// RECOURSE_DIST, to measure a patched copy of dist/ before a core change lands.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const url = process.env.RECOURSE_DIST
  ? pathToFileURL(resolve(process.env.RECOURSE_DIST)).href
  : new URL('../../dist/index.js', import.meta.url).href;

export const loadRecourse = () => import(url);
/** A sibling entry of the built package, e.g. `chaos/index.js`. */
export const loadEntry = (path) => import(new URL(path, url).href);
