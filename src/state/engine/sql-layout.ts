import { parseStored } from './parse-stored.js';

type Row = Record<string, unknown>;

/**
 * How a collection's records sit in a SQL table of their own, for the SQL drivers (ARCHITECTURE.md
 * §state.drivers): its table (each dialect adds its prefix or schema), the key column, the
 * record's field that repeats the key, and each other field's column. `json` fields are stored
 * as JSON text and handed back as text (the collection's `parse` decodes them, so one bad value is
 * `corrupt_record` naming its key); field `'*'` keeps the whole record in one JSON column.
 * `versioned: false`: the rows carry no version (they are only ever replaced whole, by `put`).
 *
 * @example
 * const layout: SqlLayout = { table: 'budgets', key: 'name', columns: [['*', 'record', 'json']] }
 */
export interface SqlLayout {
  readonly table: string;
  readonly key: string;
  readonly keyField?: string;
  readonly versioned?: false;
  readonly columns: ReadonlyArray<
    readonly [field: string, column: string, kind?: 'optional' | 'json']
  >;
}

/**
 * The column values of `value` in `layout`'s order: JSON fields as text, absent ones as null,
 * strings through `text` (PostgreSQL's text cannot hold U+0000).
 *
 * @example
 * statement.run(key, ...layoutColumns(layout, entry))
 */
export function layoutColumns(
  layout: SqlLayout,
  value: Row,
  text: (s: string) => string = (s) => s,
): unknown[] {
  return layout.columns.map(([field, , kind]) => {
    const v = field === '*' ? value : value[field];
    if (kind === 'json') return JSON.stringify(v);
    if (typeof v === 'string') return text(v);
    return v === undefined ? null : v;
  });
}

/**
 * The record a row of `layout` holds (the key put back in `keyField`; a null optional column left
 * out); a whole-record JSON column that is not JSON rejects as `corrupt_record` naming `key`.
 *
 * @example
 * const entry = layoutValue(layout, row, key, 'sqliteStore: recourse_ledger')
 */
export function layoutValue(layout: SqlLayout, row: Row, key: string, what: string): Row {
  const value: Row = {};
  if (layout.keyField !== undefined) value[layout.keyField] = key;
  for (const [field, column, kind] of layout.columns) {
    const v = row[column];
    if (field === '*') return parseStored<Row>(String(v), { what, key });
    if (v === null && kind === 'optional') continue;
    value[field] = v;
  }
  return value;
}

/** The column of `field` in `layout` (a field without one is refused: a caller's mistake). */
export function layoutColumn(layout: SqlLayout, field: string): string {
  const found = layout.columns.find(([f]) => f === field);
  if (found === undefined) throw new Error(`${layout.table} has no column for field ${field}`);
  return found[1];
}
