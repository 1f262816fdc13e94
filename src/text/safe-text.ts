// Turning an unknown thrown value into text must never throw: a null-prototype object, an Error
// whose `message` getter throws or a hostile Proxy would otherwise replace the real failure with a
// TypeError from our own bookkeeping (and a breaker would never count it).

const MAX_TEXT = 2_000;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function clipName(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

function tagOf(value: object): string {
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return '[object]';
  }
}

/**
 * @internal Text for any value, for messages and logs; never throws. Strings are returned as they
 * are; errors (anything with a string `message`) as their message; other objects as JSON when
 * possible, else their tag. At most 2000 characters.
 *
 * @example
 * textOf(Object.assign(Object.create(null), { status: 503 }))   // '{"status":503}'
 */
export function textOf(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string':
        return clip(value);
      case 'bigint':
        return `${value}n`;
      case 'symbol':
        return value.description === undefined ? 'Symbol()' : `Symbol(${value.description})`;
      case 'function':
        return 'a function';
      case 'object':
        break;
      default:
        return String(value);
    }
    if (value === null) return 'null';
    const message = errorMessageField(value);
    if (message !== undefined) return clip(message);
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) return clip(json);
    } catch {
      // cycles, throwing toJSON or getters: fall through to the tag
    }
    return tagOf(value);
  } catch {
    return '[unprintable value]';
  }
}

/**
 * A string `message` read defensively (a getter may throw), or undefined. Any object with one
 * counts: errors from another realm or package copy are not `instanceof Error`.
 */
function errorMessageField(value: object): string | undefined {
  try {
    const message: unknown = (value as { message?: unknown }).message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    // A message that cannot be read: say so rather than show the object's (often empty) JSON.
    return UNREADABLE_MESSAGE;
  }
}

const UNREADABLE_MESSAGE = '[unreadable message]';

/**
 * @internal `name: message` of an error-like value, or {@link textOf} for anything else; never
 * throws.
 *
 * @example
 * errorText(new TypeError('x is undefined'))   // 'TypeError: x is undefined'
 */
export function errorText(value: unknown): string {
  try {
    if (value instanceof Error) {
      const name = safeField(value, 'name');
      const message = safeField(value, 'message');
      if (name !== undefined && message !== undefined)
        return clip(message === '' ? name : `${name}: ${message}`);
      if (message !== undefined) return clip(message);
    }
  } catch {
    // a Proxy around an Error may throw from instanceof itself
  }
  return textOf(value);
}

/**
 * @internal `value[key]` when it is a string; never throws (getters and Proxies may).
 *
 * @example
 * safeField(error, 'code') // 'ECONNRESET', or undefined
 */
export function safeField(value: unknown, key: string): string | undefined {
  const field = safeRead(value, key);
  return typeof field === 'string' ? field : undefined;
}

/**
 * @internal `value[key]` whatever its type, or undefined when `value` is not an object or the read
 * throws (a getter, a Proxy trap, a revoked Proxy).
 *
 * @example
 * safeRead(error, 'cause')
 */
export function safeRead(value: unknown, key: PropertyKey): unknown {
  try {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null)
      return undefined;
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * @internal A readable type name for any thrown value, never throwing: its string `name`
 * (`RateLimitError`), else its constructor's name, else `Object` (or the JS type of a primitive).
 *
 * @example
 * typeName(Object.create(null)) // 'Object'
 */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = safeField(value, 'name');
  if (name !== undefined && name !== '') return clipName(name);
  const ctor = safeField(safeRead(value, 'constructor'), 'name');
  return ctor !== undefined && ctor !== '' ? clipName(ctor) : 'Object';
}
