/**
 * The names of a feature's events, as an object with one `true` per key of its event map: a
 * feature's events file declares its map and this list side by side (ARCHITECTURE.md
 * §api.events), so a name added to one and missing from the other is a compile error, and
 * `event-types.ts` assembles the runtime list of every name from them.
 *
 * @example
 * export const RETRY_EVENTS: EventKeys<RetryEvents> = { retry: true, giveup: true }
 */
export type EventKeys<M> = { readonly [K in keyof M]: true };
