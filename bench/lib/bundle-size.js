// The size a user's bundler makes of an import: esbuild, bundled and minified as a production build
// would (ESM out, tree-shaken), then gzip at level 9. Also says which modules weigh most (esbuild's
// metafile), so a size goal can be worked on.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Bundles `code` (an entry module's source, resolved from `resolveDir`) for `platform`, with the
 * modules in `external` left as imports (a runtime provides them).
 */
export async function bundleSize(code, { resolveDir, platform = 'browser', external = [] }) {
  const result = await build({
    stdin: { contents: code, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform,
    external,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  const output = Object.values(result.metafile.outputs)[0];
  const heaviest = Object.entries(output.inputs)
    .map(([path, v]) => ({ path: path.replace(/^.*?node_modules\//, ''), bytes: v.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    minified: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    imports: output.imports.map((i) => i.path),
    heaviest,
  };
}
