import { type ProviderDialect, tokenField, tokens } from './dialect.js';
import { safeRead } from '../text/safe-text.js';

/** A count of the AI SDK's usage: a number (specification v2) or `{ total }` (v3 and later). */
function count(usage: object, key: string): number {
  const v = safeRead(usage, key);
  return typeof v === 'object' && v !== null ? tokens(safeRead(v, 'total')) : tokens(v);
}

/**
 * @internal The Vercel AI SDK's own result format, whichever provider is behind it:
 * `LanguageModelUsage` (`inputTokens` / `outputTokens`, numbers or `{ total }`; older versions
 * `promptTokens` / `completionTokens`), `prompt` and `maxOutputTokens` in a call's options. The
 * provider's rate-limit headers are the provider's dialect.
 */
export const aiSdkDialect: ProviderDialect = {
  name: 'ai-sdk',
  inputFields: ['prompt', 'tools'],
  outputFields: ['maxOutputTokens'],
  usage(u) {
    if ('inputTokens' in u || 'outputTokens' in u)
      return { input: count(u, 'inputTokens'), output: count(u, 'outputTokens') };
    if ('promptTokens' in u || 'completionTokens' in u)
      return { input: tokenField(u, 'promptTokens'), output: tokenField(u, 'completionTokens') };
    return undefined;
  },
};
