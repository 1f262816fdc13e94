import { StoreError } from './store-error.js';
import type {
  Collection,
  PurgeOptions,
  ScannedRecord,
  ScanOptions,
  StateDriver,
  Unwatch,
  Versioned,
  WriteOptions,
} from './driver.js';

/** Options of {@link memoryDriver}. */
export interface MemoryDriverOptions {
  /** The clock expiry is judged by, in epoch ms. Default `Date.now`. */
  now?: () => number;
  /** Who the driver serves, named when a closed driver refuses a call. Default `'memoryDriver'`. */
  label?: string;
}

interface Held {
  value: unknown;
  version: number;
  expiresAt: number | undefined;
}

/**
 * The reference {@link StateDriver}: records in this process's memory, each write a copy
 * (`structuredClone`) so a caller mutating its object never changes the store. Change notification
 * is in-process; `purge` deletes expired records without copying the others. The contract every other driver is held to by the driver conformance cases.
 *
 * @example
 * const driver = memoryDriver()
 * await driver.insert({ name: 'leases', parse: (v) => v as Lease }, 'saga-1', lease) // true
 */
export function memoryDriver(options: MemoryDriverOptions = {}): StateDriver {
  const now = options.now ?? Date.now;
  const closedMessage = `${options.label ?? 'memoryDriver'}: the ${options.label === undefined ? 'driver' : 'store'} is closed`;
  const tables = new Map<string, Map<string, Held>>();
  const listeners = new Map<string, Set<(key: string) => void>>();
  let closed = false;

  const open = (): void => {
    if (closed) throw new StoreError('closed', closedMessage);
  };
  const table = (name: string): Map<string, Held> => {
    let found = tables.get(name);
    if (found === undefined) tables.set(name, (found = new Map()));
    return found;
  };
  const live = (name: string, key: string): Held | undefined => {
    const held = table(name).get(key);
    if (held === undefined) return undefined;
    if (held.expiresAt !== undefined && held.expiresAt <= now()) {
      table(name).delete(key);
      return undefined;
    }
    return held;
  };
  const changed = (name: string, key: string): void => {
    for (const listener of listeners.get(name) ?? []) listener(key);
  };
  const put = (name: string, key: string, value: unknown, version: number, o?: WriteOptions) => {
    table(name).set(key, { value: structuredClone(value), version, expiresAt: o?.expiresAt });
    changed(name, key);
  };
  const copy = <Row>(held: Held): Versioned<Row> => ({
    value: structuredClone(held.value) as Row,
    version: held.version,
  });

  return {
    // Every caller is on this event loop: a lost race waits microtask turns, not a timer.
    inProcess: true,
    async read<Row>(collection: Collection<Row>, key: string) {
      open();
      const held = live(collection.name, key);
      return held === undefined ? undefined : copy<Row>(held);
    },
    async insert<Row>(collection: Collection<Row>, key: string, value: Row, o?: WriteOptions) {
      open();
      if (live(collection.name, key) !== undefined) return false;
      put(collection.name, key, value, 0, o);
      return true;
    },
    async compareAndSwap<Row>(
      collection: Collection<Row>,
      key: string,
      expected: number,
      value: Row,
      o?: WriteOptions,
    ) {
      open();
      const held = live(collection.name, key);
      if (held === undefined || held.version !== expected) return false;
      put(collection.name, key, value, expected + 1, o);
      return true;
    },
    async remove<Row>(collection: Collection<Row>, key: string, expected: number) {
      open();
      const held = live(collection.name, key);
      if (held === undefined || held.version !== expected) return false;
      table(collection.name).delete(key);
      changed(collection.name, key);
      return true;
    },
    async scan<Row>(collection: Collection<Row>, scan: ScanOptions = {}) {
      open();
      const found: ScannedRecord<Row>[] = [];
      for (const key of scan.keys ?? [...table(collection.name).keys()]) {
        if (scan.prefix !== undefined && !key.startsWith(scan.prefix)) continue;
        const held = live(collection.name, key);
        if (held !== undefined) found.push({ key, record: copy<Row>(held) });
      }
      return found;
    },
    async purge<Row>(collection: Collection<Row>, o: PurgeOptions<Row>) {
      open();
      const rows = table(collection.name);
      let dropped = 0;
      for (const [key, held] of rows) {
        if (dropped >= o.limit) break;
        const value = held.value as Record<string, unknown>;
        const at = value[o.field];
        if (typeof at !== 'number' || at > o.atMost) continue;
        if (!Object.entries(o.where ?? {}).every(([field, want]) => value[field] === want))
          continue;
        rows.delete(key);
        changed(collection.name, key);
        dropped++;
      }
    },
    async watch<Row>(
      collection: Collection<Row>,
      listener: (key: string) => void,
    ): Promise<Unwatch> {
      open();
      let set = listeners.get(collection.name);
      if (set === undefined) listeners.set(collection.name, (set = new Set()));
      const own = (key: string) => listener(key);
      set.add(own);
      return async () => {
        set.delete(own);
      };
    },
    async close() {
      closed = true;
      listeners.clear();
    },
  };
}
