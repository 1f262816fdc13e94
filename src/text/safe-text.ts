// Turning an unknown thrown value into text must never throw: a null-prototype object, an Error
// whose `message` getter throws or a hostile Proxy would otherwise replace the real failure with a
// TypeError from our own bookkeeping (and a breaker would never count it).

const MAX_TEXT = 2_000;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
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
 * are; errors as their message; other objects as JSON when possible, else their tag.
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

/** A string `message` read defensively (a getter may throw), or undefined. */
function errorMessageField(value: object): string | undefined {
  try {
    if (!(value instanceof Error)) return undefined;
    const message: unknown = value.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

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
      if (name !== undefined && message !== undefined) return clip(message === '' ? name : `${name}: ${message}`);
      if (message !== undefined) return clip(message);
    }
  } catch {
    // a Proxy around an Error may throw from instanceof itself
  }
  return textOf(value);
}

/** `value[key]` when it is a string; never throws (getters and Proxies may). */
export function safeField(value: unknown, key: string): string | undefined {
  try {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
    const field: unknown = (value as Record<string, unknown>)[key];
    return typeof field === 'string' ? field : undefined;
  } catch {
    return undefined;
  }
}
