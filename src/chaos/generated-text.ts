import { createHash } from 'node:crypto';
import { seededRandom } from '../random/seeded-random.js';
import { tokensOf } from './tokens.js';

// Words of a plausible model answer. A few carry accents, an em dash or a character outside
// the BMP (a surrogate pair), so a splice that is off by one code unit shows.
const WORDS = (
  'the a of to and in that for with on as by from at this which model answer stream token ' +
  'request retry breaker circuit fallback budget latency deadline signal error result value ' +
  'agent tool call step plan task summary finding source evidence claim risk cost limit rate ' +
  'window queue worker process server client network packet socket timeout backoff jitter ' +
  'probe state store ledger saga checkpoint resume prefix splice output input context user ' +
  'system message block event delta usage header status overload capacity region replica ' +
  'careful steady brief long short early late quiet busy healthy degraded partial complete ' +
  'exact stable fresh stale small large first last next every each some many few most ' +
  'returns keeps sends reads writes checks counts waits opens closes starts stops breaks ' +
  'continues repeats measures reports learns holds drops grows shrinks settles fails recovers ' +
  'café naïve façade résumé coöperate déjà-vu — ½ Zürich São-Paulo 🙂'
).split(' ');

const CODE_OPENERS = [
  'if (!answer.ok) {',
  'for (const step of plan) {',
  'try {',
  'function resume(prefix: string) {',
];
const CODE_BODY = [
  'return retry(step);',
  '// keep the prefix',
  'await stream.finalMessage();',
  'budget -= usage.output_tokens;',
];

/** @internal A seed for {@link generateText} from the scenario seed and what the text is for. */
export function textSeed(seed: number, ...parts: string[]): number {
  return createHash('sha256')
    .update(`${seed}\n${parts.join('\n')}`)
    .digest()
    .readUInt32LE(0);
}

/**
 * @internal A deterministic text of at least `tokens` tokens (by {@link tokensOf}) that looks
 * like a model's answer: sentences, paragraphs separated by blank lines, lists, and now and
 * then an indented code block, so whitespace the Messages API refuses at the end of a prefill
 * (spaces, newlines, indentation) occurs all through it. It ends with a whole paragraph.
 */
export function generateText(seed: number, tokens: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const sentence = (end: string) => {
    const words = Array.from({ length: between(5, 16) }, () => pick(WORDS));
    words[0] = capitalise(words[0]!);
    const comma = between(2, words.length + 3);
    if (comma < words.length - 1) words[comma] = `${words[comma]},`;
    return `${words.join(' ')}${end}`;
  };
  const paragraph = () => {
    const roll = random();
    if (roll < 0.12) {
      const items = Array.from({ length: between(2, 4) }, () => `- ${sentence('')}`);
      return `${sentence(':')}\n${items.join('\n')}`;
    }
    if (roll < 0.22) {
      const body = Array.from({ length: between(1, 3) }, () => `  ${pick(CODE_BODY)}`);
      return `${sentence(':')}\n\n\`\`\`ts\n${pick(CODE_OPENERS)}\n${body.join('\n')}\n}\n\`\`\``;
    }
    return Array.from({ length: between(2, 5) }, () => sentence(random() < 0.1 ? '?' : '.')).join(
      ' ',
    );
  };
  let text = paragraph();
  while (tokensOf(text) < tokens) text += `\n\n${paragraph()}`;
  return text;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
