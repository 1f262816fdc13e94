/** @internal Moved to the capability's folder (ARCHITECTURE.md §state.drivers); this path stays for existing imports. */
export * from '../state/ledger/ledger-transitions.js';
