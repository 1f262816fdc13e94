import { charsToTokens } from '../../model-stream/chars-to-tokens.js';
import type { CallOptions, ModelObject } from '../sdk-types.js';

/**
 * @internal Whether the provider takes a trailing assistant message as a prefill: Anthropic's
 * Messages API does, unless extended thinking is on. Others (OpenAI's APIs) do not.
 */
export function takesPrefill(model: ModelObject, params: CallOptions): boolean {
  if (!/anthropic/i.test(model.provider)) return false;
  const thinking = (
    params.providerOptions?.anthropic as { thinking?: { type?: unknown } } | undefined
  )?.thinking?.type;
  return thinking !== 'enabled' && thinking !== 'adaptive';
}

/** @internal The call continued after `text`: a trailing assistant message, `maxOutputTokens` less the kept tokens. */
export function continuation(params: CallOptions, text: string): CallOptions | undefined {
  if (text === '') return params;
  let max = params.maxOutputTokens;
  if (max !== undefined) {
    max -= charsToTokens(text.length);
    if (max < 1) return undefined;
  }
  const prompt = [...params.prompt];
  const last = prompt.at(-1);
  const part = { type: 'text' as const, text };
  if (last?.role === 'assistant')
    prompt[prompt.length - 1] = { ...last, content: [...last.content, part] };
  else prompt.push({ role: 'assistant', content: [part] });
  return { ...params, prompt, ...(max === undefined ? {} : { maxOutputTokens: max }) };
}
