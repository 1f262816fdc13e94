import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, so a heap measurement counts what is still reachable and not what
 * the collector has yet to visit (vitest's workers run without `--expose-gc`; Node 24 left 75 MB of
 * garbage uncollected after 100,000 store writes where Node 20 had collected it). The flag set at
 * run time exposes `gc` in contexts created after it.
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
