/**
 * @internal How redisStore names its keys. On one node (or a primary behind Sentinel) a key is
 * `<prefix><kind>:<name>`, as it always was, so existing data stays readable. On a Redis Cluster
 * every key a script touches must hash to one slot (else CROSSSLOT), so the part that decides the
 * slot is put in braces (a hash tag): `<prefix><kind>:{<name>}`. Keys of one name (a saga's lease
 * and log) then share a slot, and names spread over the masters. Escalations all share the tag
 * `{escalations}`: their index (a sorted set of every id) is read with every record in one script,
 * and they are few (one per human decision). A prefix that has a hash tag of its own (`{app}:`)
 * already puts every key in one slot: the keys are then left as on one node.
 */
export class RedisKeys {
  readonly #prefix: string;
  readonly #tagged: boolean;

  /** Throws a TypeError for a cluster prefix with a `{` that opens no hash tag (keys of one call would land in different slots). */
  constructor(prefix: string, cluster: boolean) {
    this.#prefix = prefix;
    const tag = prefixTag(prefix);
    if (cluster && tag === 'broken')
      throw new TypeError(
        `prefix ${JSON.stringify(prefix)} has a "{" that opens no hash tag (no "}" after it, or nothing between): on a Redis Cluster it would hash each key whole, so keys of one call would land in different slots (use a prefix without braces, or a whole hash tag like "{app}:")`,
      );
    this.#tagged = cluster && tag === 'none';
  }

  /** The key of one record: `<prefix><kind>:<name>`, on a cluster `<prefix><kind>:{<name>}`. */
  key(kind: string, name: string): string {
    if (kind === 'escalation') return `${this.escalationPrefix}${name}`;
    if (!this.#tagged) return `${this.#prefix}${kind}:${name}`;
    // An empty tag (`{}`, or a name starting with `}`) would hash the whole key: a saga's lease and
    // log would part. `=` keeps such a tag non-empty, the same for both.
    const tag = name === '' || name.startsWith('}') ? `=${name}` : name;
    return `${this.#prefix}${kind}:{${tag}}`;
  }

  /** The sorted set of every escalation id. */
  get escalationIndex(): string {
    return this.#tagged ? `${this.#prefix}{escalations}` : `${this.#prefix}escalations`;
  }

  /** What an escalation's id follows in its key (escalation-list derives the keys from it). */
  get escalationPrefix(): string {
    return this.#tagged ? `${this.#prefix}escalation:{escalations}` : `${this.#prefix}escalation:`;
  }
}

/**
 * What the prefix's braces do to a key's slot (Redis hashes the text between the first `{` and
 * the first `}` after it, when that is not empty): `none` (no `{`), `tag` (a whole tag: every key
 * in one slot) or `broken` (a `{` that opens no tag within the prefix).
 */
function prefixTag(prefix: string): 'none' | 'tag' | 'broken' {
  const open = prefix.indexOf('{');
  if (open < 0) return 'none';
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1 ? 'tag' : 'broken';
}
