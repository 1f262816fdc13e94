import type { Backend } from './backend.js';

/** The memory store has no address: each `open` is a new, empty store of this process. */
export interface MemorySpec {
  readonly kind: 'memory';
}

/**
 * The memory backend of the backend list: one process, nothing to address (the CLI's `--store`
 * does not take it), nothing to install.
 *
 * @example
 * const store = await memoryBackend.open({ kind: 'memory' })
 */
export const memoryBackend: Backend<MemorySpec> = {
  kind: 'memory',
  form: undefined,
  shared: false,
  notifies: false,
  rateLimits: true,
  needs: { clients: [] },
  parse: () => undefined,
  describe: () => 'memory',
  async open() {
    const { memoryStore } = await import('./memory-store.js');
    return memoryStore();
  },
  unreachable: async () => undefined,
  scratch: () => ({ kind: 'memory' }),
  drop: async () => {},
};
