/** @internal Moved below the capabilities (ARCHITECTURE.md §state.drivers); this path stays for existing imports. */
export * from '../state/engine/store-error.js';
