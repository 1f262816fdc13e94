/** @internal Moved to the capability's folder (ARCHITECTURE.md "Durable state: capabilities over drivers"); this path stays for existing imports. */
export * from '../state/checkpoint/checkpoint-record.js';
