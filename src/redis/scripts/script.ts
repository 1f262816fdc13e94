import { createHash } from 'node:crypto';

/**
 * @internal One Lua script: its source (with the header naming KEYS, ARGV and the reply), how many
 * KEYS it takes, and its SHA1 for `EVALSHA`.
 */
export interface RedisScript {
  readonly name: string;
  readonly keys: number;
  readonly source: string;
  readonly sha: string;
}

/** @internal A script from its source; the SHA1 is the one Redis computes for `SCRIPT LOAD`. */
export function redisScript(name: string, keys: number, source: string): RedisScript {
  return { name, keys, source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * @internal Lua helper prepended where a script does arithmetic: numbers go back to Redis and to
 * JavaScript as text with 17 significant digits, which reads back as the same double (Lua's
 * `tostring` keeps 14, and a number reply would be truncated to an integer).
 */
export const LUA_NUM = `local function num(x) return string.format('%.17g', x) end
`;
