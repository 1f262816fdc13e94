// `npm test`'s build step: builds dist/ only when a source or build setting is newer than the last
// build (dist/.tsbuildinfo), so a second `npm test` starts its tests at once; `npm run build`
// always builds. A build that changed nothing still marks the time, so the next check is quick.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.tsbuildinfo');

const newest = (path) => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let max = s.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
};

let builtAt = 0;
try {
  builtAt = statSync(stamp).mtimeMs;
} catch {}
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const changedAt = Math.max(...inputs.map((p) => newest(join(root, p))));
if (changedAt >= builtAt) {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  const now = new Date();
  utimesSync(stamp, now, now);
}
