import { NotSerializableError } from './not-serializable-error.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function child(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Why a primitive cannot be JSON, or undefined when it can. */
function unserializable(value: unknown): string | undefined {
  switch (typeof value) {
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    case 'bigint':
      return 'a BigInt';
    case 'undefined':
      return 'undefined';
    case 'number':
      if (Number.isNaN(value)) return 'NaN';
      return Number.isFinite(value) ? undefined : value > 0 ? 'Infinity' : '-Infinity';
    default:
      // JSON.stringify turns these into {} and loses every entry: refuse rather than forget data.
      if (value instanceof Map) return 'a Map (convert it to an object or an array first)';
      if (value instanceof Set) return 'a Set (convert it to an array first)';
      return undefined;
  }
}

/** Applies `toJSON` once, as JSON.stringify does. */
function resolve(value: unknown, key: string, path: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== 'function') return value;
  try {
    return toJSON.call(value, key);
  } catch (error) {
    throw new NotSerializableError(path, 'an object whose toJSON() threw', undefined, {
      cause: error,
    });
  }
}

/**
 * Canonical JSON: object keys sorted (by UTF-16 code unit, as RFC 8785) at every depth, no
 * whitespace, `toJSON` honoured (a Date becomes its ISO string). Unlike `JSON.stringify` it refuses
 * what would not survive a round trip — functions, symbols, BigInt, NaN, ±Infinity, `undefined`
 * in an array or at the root, Map, Set, and cycles — with a {@link NotSerializableError} whose
 * `path` names the place (`state.items[2]`). `undefined` object properties are dropped, as JSON
 * does. Equal data gives equal text, so its hash is a stable identity.
 *
 * @param root the name the path starts with. Default `'value'`.
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown, root = 'value'): string {
  // Only the chain from the root to the current node: a value shared by two siblings is no cycle.
  const ancestors: object[] = [];

  const write = (v: unknown, path: string): string => {
    if (v === null) return 'null';
    const bad = unserializable(v);
    if (bad !== undefined) throw new NotSerializableError(path, bad);
    if (typeof v !== 'object') return JSON.stringify(v);
    if (ancestors.includes(v))
      throw new NotSerializableError(path, 'a cycle (a reference to one of its own ancestors)');
    ancestors.push(v);
    try {
      if (Array.isArray(v)) {
        const items: string[] = [];
        for (let i = 0; i < v.length; i++) {
          const itemPath = `${path}[${i}]`;
          items.push(write(resolve(v[i], String(i), itemPath), itemPath));
        }
        return `[${items.join(',')}]`;
      }
      const record = v as Record<string, unknown>;
      const fields: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const itemPath = child(path, key);
        const item = resolve(record[key], key, itemPath);
        if (item === undefined) continue; // as JSON: an undefined property is absent
        fields.push(`${JSON.stringify(key)}:${write(item, itemPath)}`);
      }
      return `{${fields.join(',')}}`;
    } finally {
      ancestors.pop();
    }
  };

  return write(resolve(value, '', root), root);
}
