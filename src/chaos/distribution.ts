import { fail, knownFields, nonNegative, object, positive, show } from './scenario-checks.js';

/**
 * A duration in ms, fixed or drawn from a distribution on the scenario's seeded random source:
 * a number (always that), `{ uniform: [min, max] }`, `{ exponential: { mean, max? } }`,
 * `{ lognormal: { median, sigma, max? } }` (a heavy right tail; `max` caps a draw), or
 * `{ mix: [{ weight, ms }, …] }` (one of the distributions, picked by weight; weights need
 * not add up to 1). A mix makes a heavy tail on a steady base, such as "5% of first events
 * 10× later".
 *
 * @example
 * const gap: Distribution = { mix: [{ weight: 95, ms: 40 }, { weight: 5, ms: { uniform: [400, 600] } }] }
 */
export type Distribution =
  | number
  | { uniform: [number, number] }
  | { exponential: { mean: number; max?: number } }
  | { lognormal: { median: number; sigma: number; max?: number } }
  | { mix: Array<{ weight: number; ms: Distribution }> };

const SHAPES = ['uniform', 'exponential', 'lognormal', 'mix'];

/** @internal Draws one duration (ms, >= 0) from `d` with `random` (uniform in [0, 1)). */
export function sample(d: Distribution, random: () => number): number {
  if (typeof d === 'number') return d;
  if ('uniform' in d) return d.uniform[0] + random() * (d.uniform[1] - d.uniform[0]);
  if ('exponential' in d)
    return capped(-d.exponential.mean * Math.log(1 - random()), d.exponential.max);
  if ('lognormal' in d) {
    // Box-Muller: one standard normal draw from two uniform ones (1 - u avoids log(0)).
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return capped(d.lognormal.median * Math.exp(d.lognormal.sigma * z), d.lognormal.max);
  }
  const total = d.mix.reduce((sum, part) => sum + part.weight, 0);
  let roll = random() * total;
  for (const part of d.mix) {
    roll -= part.weight;
    if (roll < 0) return sample(part.ms, random);
  }
  return sample(d.mix[d.mix.length - 1]!.ms, random);
}

function capped(ms: number, max: number | undefined): number {
  return max === undefined ? ms : Math.min(ms, max);
}

/**
 * @internal Validates a {@link Distribution}; errors name the path inside it. `unit` names what
 * a plain number counts in the message.
 */
export function parseDistribution(value: unknown, at: string, unit = 'ms'): Distribution {
  if (typeof value === 'number') {
    nonNegative(value, at);
    return value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      at,
      `must be a number of ${unit} >= 0 or an object with one of ${SHAPES.join(', ')}, got ${show(value)}`,
    );
  }
  const raw = value as Record<string, unknown>;
  const keys = Object.keys(raw);
  if (keys.length !== 1 || !SHAPES.includes(keys[0]!)) {
    fail(
      at,
      `must have exactly one of ${SHAPES.join(', ')}, got ${keys.length === 0 ? 'an empty object' : `the fields ${keys.join(', ')}`}`,
    );
  }
  if (raw.uniform !== undefined) {
    const range = raw.uniform;
    if (!Array.isArray(range) || range.length !== 2)
      fail(`${at}.uniform`, `must be [min, max], got ${show(range)}`);
    const [min, max] = range as unknown[];
    nonNegative(min, `${at}.uniform[0]`);
    nonNegative(max, `${at}.uniform[1]`);
    if ((max as number) < (min as number))
      fail(`${at}.uniform`, `must have min <= max, got [${String(min)}, ${String(max)}]`);
    return { uniform: [min as number, max as number] };
  }
  if (raw.exponential !== undefined) {
    const o = object(raw.exponential, `${at}.exponential`);
    knownFields(o, ['mean', 'max'], `${at}.exponential`);
    positive(o.mean, `${at}.exponential.mean`);
    return { exponential: { mean: o.mean as number, ...maxOf(o, `${at}.exponential`) } };
  }
  if (raw.lognormal !== undefined) {
    const o = object(raw.lognormal, `${at}.lognormal`);
    knownFields(o, ['median', 'sigma', 'max'], `${at}.lognormal`);
    positive(o.median, `${at}.lognormal.median`);
    nonNegative(o.sigma, `${at}.lognormal.sigma`);
    return {
      lognormal: {
        median: o.median as number,
        sigma: o.sigma as number,
        ...maxOf(o, `${at}.lognormal`),
      },
    };
  }
  const parts = raw.mix;
  if (!Array.isArray(parts) || parts.length === 0)
    fail(`${at}.mix`, `must be a non-empty array of { weight, ms }, got ${show(parts)}`);
  return {
    mix: (parts as unknown[]).map((part, i) => {
      const o = object(part, `${at}.mix[${i}]`);
      knownFields(o, ['weight', 'ms'], `${at}.mix[${i}]`);
      positive(o.weight, `${at}.mix[${i}].weight`);
      if (o.ms === undefined) fail(`${at}.mix[${i}].ms`, 'is required');
      return {
        weight: o.weight as number,
        ms: parseDistribution(o.ms, `${at}.mix[${i}].ms`, unit),
      };
    }),
  };
}

function maxOf(o: Record<string, unknown>, at: string): { max?: number } {
  if (o.max === undefined) return {};
  nonNegative(o.max, `${at}.max`);
  return { max: o.max as number };
}
