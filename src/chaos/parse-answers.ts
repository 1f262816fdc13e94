import type { CannedAnswer, CannedAnswers } from './canned-answers.js';
import { fail, integerIn, knownFields, object, string } from './scenario-checks.js';

const MAX_GENERATED_TOKENS = 1_000_000;
const tokenCount = integerIn(1, MAX_GENERATED_TOKENS);
const MAX_CONTEXT_TOKENS = 100_000_000;

/** @internal Validates the scenario's (or the server option's) `answers`. */
export function parseAnswers(input: unknown, at: string): CannedAnswers {
  const raw = object(input, at);
  const answers: Array<[string, CannedAnswer]> = [];
  for (const [model, value] of Object.entries(raw)) {
    const field = `${at}[${JSON.stringify(model)}]`;
    const entry = object(value, field);
    knownFields(
      entry,
      ['text', 'textTokens', 'thinking', 'thinkingTokens', 'toolUse', 'contextTokens'],
      field,
    );
    const answer: CannedAnswer = {};
    if (entry.text !== undefined && entry.textTokens !== undefined)
      fail(`${field}.textTokens`, 'cannot be given with text (one or the other)');
    if (entry.thinking !== undefined && entry.thinkingTokens !== undefined) {
      fail(`${field}.thinkingTokens`, 'cannot be given with thinking (one or the other)');
    }
    if (entry.text !== undefined) answer.text = string(entry.text, `${field}.text`, true);
    if (entry.textTokens !== undefined) {
      tokenCount(entry.textTokens, `${field}.textTokens`);
      answer.textTokens = entry.textTokens as number;
    }
    if (entry.thinking !== undefined)
      answer.thinking = string(entry.thinking, `${field}.thinking`, true);
    if (entry.thinkingTokens !== undefined) {
      tokenCount(entry.thinkingTokens, `${field}.thinkingTokens`);
      answer.thinkingTokens = entry.thinkingTokens as number;
    }
    if (entry.toolUse !== undefined) {
      const tool = object(entry.toolUse, `${field}.toolUse`);
      knownFields(tool, ['name', 'input'], `${field}.toolUse`);
      const name = string(tool.name, `${field}.toolUse.name`);
      const toolInput =
        tool.input === undefined ? {} : object(tool.input, `${field}.toolUse.input`);
      answer.toolUse = { name, input: toolInput };
    }
    if (entry.contextTokens !== undefined) {
      integerIn(1, MAX_CONTEXT_TOKENS)(entry.contextTokens, `${field}.contextTokens`);
      answer.contextTokens = entry.contextTokens as number;
    }
    answers.push([model, answer]);
  }
  // fromEntries defines own properties, so a model named "__proto__" stays a plain key.
  return Object.fromEntries(answers);
}
