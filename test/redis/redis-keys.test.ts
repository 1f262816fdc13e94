// How redisStore names its keys: on one node exactly as before hash tags existed (existing data
// stays readable), on a cluster with the slot-deciding part in braces.
import { describe, expect, it } from 'vitest';
import { RedisKeys } from '../../src/redis/redis-keys.js';

/** Redis' hash tag rule: the text between the first `{` and the first `}` after it, when not empty; else the whole key. */
function hashed(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('redisStore key layout', () => {
  it('one node: <prefix><kind>:<name>, as always', () => {
    const keys = new RedisKeys('app:', false);
    expect(keys.key('breaker', 'claude')).toBe('app:breaker:claude');
    expect(keys.key('saga-log', 's1')).toBe('app:saga-log:s1');
    expect(keys.key('escalation', 'e1')).toBe('app:escalation:e1');
    expect(keys.escalationIndex).toBe('app:escalations');
    expect(keys.escalationPrefix).toBe('app:escalation:');
    // Braces in a single-node prefix change nothing.
    expect(new RedisKeys('a{b:', false).key('breaker', 'x')).toBe('a{b:breaker:x');
  });

  it("cluster: the name is the hash tag, so a saga's lease and log share a slot, whatever the id", () => {
    const keys = new RedisKeys('app:', true);
    expect(keys.key('breaker', 'claude')).toBe('app:breaker:{claude}');
    for (const id of ['s1', '', '}', '}x', 'a}b', '{x}', 'ключ🔑']) {
      const lease = hashed(keys.key('saga-lease', id));
      expect(lease).toBe(hashed(keys.key('saga-log', id)));
      expect(lease).not.toBe(keys.key('saga-lease', id)); // a tag, never the whole key
    }
  });

  it('cluster: every escalation key and the index share one tag', () => {
    const keys = new RedisKeys('app:', true);
    expect(keys.escalationIndex).toBe('app:{escalations}');
    for (const id of ['e1', '', '}'])
      expect(hashed(keys.key('escalation', id))).toBe(hashed(keys.escalationIndex));
    expect(keys.key('escalation', 'e1')).toBe(`${keys.escalationPrefix}e1`);
  });

  it("cluster: a prefix with a tag of its own keeps the single-node layout (every key in the prefix's slot)", () => {
    const keys = new RedisKeys('{app}:', true);
    expect(keys.key('breaker', 'x')).toBe('{app}:breaker:x');
    expect(keys.escalationIndex).toBe('{app}:escalations');
  });

  it('cluster: a prefix whose "{" opens no tag is refused (keys of one call would part)', () => {
    expect(() => new RedisKeys('a{b:', true)).toThrow(TypeError);
    expect(() => new RedisKeys('a{}:', true)).toThrow(/opens no hash tag/);
  });
});
